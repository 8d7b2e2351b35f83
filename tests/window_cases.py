"""Pooling and scans for tests/test_windows.py."""
import astjax.numpy as jnp
from astjax import lax


def max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def avg_pool_same(x):
    total = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    return total / 9.0


def dilated_min(x):
    return lax.reduce_window(x, jnp.inf, lax.min, (2, 3), (1, 2), ((1, 0), (2, 1)),
                             base_dilation=(1, 2), window_dilation=(2, 1))


def pooled_loss(x):
    return jnp.sum(max_pool(x) ** 2) + jnp.sum(jnp.tanh(avg_pool_same(x)))


def prefix_products(x):
    return lax.associative_scan(lambda a, b: a * b, x, axis=1)


def reversed_prefix_max(x):
    return lax.associative_scan(jnp.maximum, x, reverse=True)


def top3(x):
    return lax.top_k(x, 3)


def rows_squared(x):
    return lax.map(lambda row: jnp.sum(row ** 2), x)
