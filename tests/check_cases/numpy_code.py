"""Functions written against NumPy (this file imports numpy, not jax.numpy): NumPy's in-place
item writes on arguments and locals become functional updates of the local name."""
import numpy as np


def writes_items(x):
    x[0] = 5.0
    x[1:3] *= 2
    x[-1] += np.sin(x[0])
    return x.sum() + x[0]


def normalises_rows(m):
    for i in range(m.shape[0]):
        m[i] = m[i] / np.linalg.norm(m[i])
    return m


def plain(x):
    x[::2] = 0.0
    return x
