"""`lax` as generated NumPy-backend modules see it: every primitive's NumPy implementation.

Elementwise primitives applied to Python scalars only return a Python scalar, not a NumPy one:
the compiler types such values weakly (a loop counter `i` keeps `x_f32 * i` in float32, as in
eager Python and in JAX), and a NumPy scalar would be strongly typed under NEP 50.
"""
import types

import numpy as np

from astjax.core.bind import stays_weak, weak_scalar
from astjax.core.table import PRIMITIVES


def _runtime_impl(prim):
    if prim.kind != "elementwise":
        return prim.impl

    def run(*args, **params):
        out = prim.impl(*args, **params)
        if type(out) is np.ndarray and out.ndim:  # the common case, decided cheaply
            return out
        return weak_scalar(out) if stays_weak(prim, args, out) else out
    return run


lax = types.SimpleNamespace(**{name: _runtime_impl(p) for name, p in PRIMITIVES.items()})
