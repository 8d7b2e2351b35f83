"""Functions that read globals: the jit cache must notice when they change."""
import numpy as np

import astjax.numpy as jnp

SCALE = 2.0
TABLE = np.arange(3.0)


def helper(x):
    return x * SCALE


def scaled(x):
    return helper(x) + TABLE


def with_static(x, n, mode="sum"):
    acc = x
    for _ in range(n):
        acc = acc * 2.0
    if mode == "sum":
        return jnp.sum(acc)
    return jnp.max(acc)


def pytree_fn(params, x):
    h = jnp.tanh(x @ params["w"] + params["b"])
    return {"out": h, "norm": jnp.sum(h * h)}, (h.shape[0], None)
