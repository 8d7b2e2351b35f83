"""Functions for tests/test_reliability.py."""
import astjax.numpy as jnp


def largest(x):
    return jnp.max(x)


def where_largest(x):
    return jnp.argmax(x)


def row_smallest(x):
    return jnp.min(x, axis=1)


def column_largest(x):
    return jnp.max(x, axis=0)


def half_precision(x):
    return jnp.sin(x) * 2


WEIGHTS = jnp.arange(3.0)


def lax(x):  # user names that generated code also uses
    return x + 1


def rt(x):
    return x * 2


def generated_names(x):
    vecmath = x * 2
    np = vecmath + WEIGHTS
    rt_ = rt(np)
    _c0 = lax(rt_) + 1.5
    math = _c0 * WEIGHTS
    numba = math + 1
    return numba


def power_by_recursion(x, n):
    """Recursion bounded by a static argument: unrolled, as JAX runs it."""
    if n == 0:
        return 1.0
    return x * power_by_recursion(x, n - 1)


def halving_sum(xs, lo, hi):
    if hi - lo == 1:
        return xs[lo]
    mid = (lo + hi) // 2
    return halving_sum(xs, lo, mid) + halving_sum(xs, mid, hi)


def runaway(x):
    if x > 0:
        return runaway(x - 1.0)
    return x


def elementwise_chain(x):
    a = x * 2.0
    b = a + 1.0
    c = b * 3.0
    d = c - 1.0
    e = d * d
    f = e + 2.0
    return f * 0.5
