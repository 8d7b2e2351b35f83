"""Small functions whose core form the tests spell out line by line."""
import numpy as np

import astjax.numpy as jnp


def augmented(x):
    x += 1.0
    x *= x
    return x


def chained(x, lo, hi):
    return lo < x <= hi


def methods(x):
    return x.sum(axis=0) + x.T.shape[0]


def update(x):
    y = x * 2.0
    y[0] = 5.0
    return y.at[1].add(1.0)


def plain_numpy(x):
    return np.sin(x) * np.float64(2.0)


def static_branch(x):
    if x.ndim == 2:
        return jnp.sum(x, axis=1)
    return x


def shifts(x):
    return (x << 2) ^ (x >> 1)
