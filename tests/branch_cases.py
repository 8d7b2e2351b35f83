"""Functions whose untaken branches use values that are nan or inf where they are not taken
(tests/test_untaken_branches.py)."""
import astjax.numpy as jnp


def sqrt_guard(x, c):
    s = jnp.sqrt(c - x)
    if s > 0:
        return s * x
    return x * 2.0


def log_guard(x):
    y = jnp.log(x)
    if x > 0:
        return y * y
    return -x


def loop_continue(x):
    total = 0.0
    for i in range(4):
        r = jnp.sqrt(x - i)
        if x < i:
            continue
        total = total + r * x
    return total


def loop_early_return(x):
    for i in range(4):
        inv = 1.0 / (x - i)
        if x < i + 0.5:
            return x * i
        x = x + 0.1 * inv
    return x


def vector_where(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.sum(jnp.where(x > 0, jnp.log(safe) * x, x ** 2))


def nested(x, c):
    s = jnp.sqrt(c - x)
    t = jnp.log(x)
    if x > 0:
        if s > 0:
            return s * t
        return t * 3.0
    return x
