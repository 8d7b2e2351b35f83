"""Functions whose generated source is kept as golden text (tests/test_golden.py)."""
import astjax.numpy as jnp
from astjax import lax


def softclip(x, limit):
    y = jnp.tanh(x) * limit
    if jnp.sum(y) > limit:
        y = y / jnp.sum(y) * limit
    return jnp.sum(y * y)


def loop(x):
    while x < 10.0:
        x = x * 1.5 + jnp.sin(x)
    return x


def newton_sqrt(a):
    x = a
    while jnp.abs(x * x - a) > 1e-9 * a:
        x = 0.5 * (x + a / x)
    return x


def predict(w, b, x):
    return jnp.tanh(x @ w + b)


def chain(x):
    y = jnp.tanh(x) * jnp.exp(-x * x) + 0.5 * jnp.sin(3.0 * x)
    return jnp.log1p(y * y)


def damped(params, y0):
    def step(i, y):
        q, p = y[0], y[1]
        p = p - 0.01 * (params[0] * jnp.sin(q) + params[1] * p)
        return jnp.stack([q + 0.01 * p, p])
    return lax.fori_loop(0, 100, step, y0)


def mlp_loss(params, x):
    (w1, b1), w2 = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.sum((h @ w2) ** 2)
