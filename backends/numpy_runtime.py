"""`lax` as generated NumPy-backend modules see it: every primitive's NumPy implementation.

Elementwise primitives applied to Python scalars only return a Python scalar, not a NumPy one:
the compiler types such values weakly (a loop counter `i` keeps `x_f32 * i` in float32, as in
eager Python and in JAX), and a NumPy scalar would be strongly typed under NEP 50.
"""
import types

import numpy as np

from astjax.core.table import PRIMITIVES

_PYTHON_SCALARS = (bool, int, float, complex)


def _weak_preserving(impl):
    def run(*args, **params):
        out = impl(*args, **params)
        if np.ndim(out) == 0 and all(isinstance(a, _PYTHON_SCALARS) for a in args):
            return np.asarray(out).item()
        return out
    return run


def _runtime_impl(prim):
    if prim.kind == "elementwise" and prim.name != "convert":
        return _weak_preserving(prim.impl)
    return prim.impl


lax = types.SimpleNamespace(**{name: _runtime_impl(p) for name, p in PRIMITIVES.items()})
