"""Loops whose derivatives and dead results test_loop_residuals.py checks."""
import astjax as jax
import astjax.numpy as jnp
from astjax import lax


def rnn_loss(wh, wx, xs):
    """A recurrent net through lax.scan: its gradient's sweep multiplies by the weights once
    per step for each of h, wh and wx (three dot_generals), the forward pass two."""
    def step(h, x):
        h = jnp.tanh(h @ wh + x @ wx)
        return h, jnp.sum(h * h)

    h0 = jnp.zeros((xs.shape[1], wh.shape[0]), dtype=xs.dtype)
    _, losses = lax.scan(step, h0, xs)
    return jnp.mean(losses)


def printing_scan(x):
    def step(c, xi):
        jax.debug.print("step {}", xi)
        return c * jnp.sin(xi), c

    c, ys = lax.scan(step, 1.0, x)
    return c + jnp.sum(ys * ys)


def nested_scans(x):
    def outer(c, xi):
        def inner(d, k):
            return jnp.sin(d * k + c), d * d

        d, ds = lax.scan(inner, xi, jnp.arange(1.0, 4.0))
        return c + d, jnp.sum(ds)

    c, ys = lax.scan(outer, 0.5, x)
    return c * jnp.sum(ys)


def unused_scan_outputs(x):
    def step(c, xi):
        total, count = c
        return (total + xi * xi, count + 1), jnp.sin(xi) * 3.0

    (total, _), _ = lax.scan(step, (0.0, 0), x)
    return total


def carry_read_by_a_kept_carry(x):
    def step(i, c):
        a, b, junk = c
        return a + b, b * 2.0, jnp.cos(junk)

    a, _, _ = lax.fori_loop(0, 5, step, (x, x, x))
    return a


def while_with_a_dead_carry(x):
    def cond(s):
        return s[0] < 10

    def body(s):
        i, acc, junk = s
        return i + 1, acc + x, jnp.cos(junk)

    _, acc, _ = lax.while_loop(cond, body, (0, 0.0 * x, x))
    return acc


def logsumexp_rows(x):
    return jnp.sum(jax.nn.logsumexp(x, axis=1))


def relu_sum(x):
    return jnp.sum(jnp.maximum(x, 0.0) * x)
