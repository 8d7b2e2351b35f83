"""Reductions: over axes (sum, product, extrema, any/all), to an index (argmax/argmin),
and running along one axis (cumsum, cumprod, cummax, cummin).

Parameters are static and keyword-only; axes are normalised to non-negative ints before a
primitive is applied.
"""
import numpy as np

from ...errors import ShapeError
from ..avals import AVal
from ..primitives import define
from .util import rule_from_impl

NO_IDENTITY = {"reduce_max": "maximum", "reduce_min": "minimum", "argmax": "argmax",
               "argmin": "argmin"}


def _needs_elements(name, abstract):
    """Extrema of nothing are undefined: NumPy raises, and so does compilation (instead of
    returning whatever memory or identity a backend would give). Sizes of 0 are always
    concrete (a symbolic size is at least 2)."""
    def checked(a, **params):
        axes = params["axes"] if "axes" in params else (params["axis"],)
        if any(isinstance(a.shape[i], int) and a.shape[i] == 0 for i in axes):
            what = NO_IDENTITY[name]
            raise ShapeError(f"zero-size array to reduction operation {what} which has no "
                             "identity" if what in ("maximum", "minimum") else
                             f"attempt to get {what} of an empty sequence",
                             hint="check the size first, or reduce with a where= mask "
                                  "(jnp.where(mask, x, -jnp.inf).max())")
        return abstract(a, **params)
    return checked


def _reduced_shape(a, *, axes, **_):
    return [d for i, d in enumerate(a.shape) if i not in axes]


REDUCTIONS = {
    "reduce_sum": np.sum, "reduce_prod": np.prod, "reduce_max": np.max, "reduce_min": np.min,
    "reduce_and": np.all, "reduce_or": np.any,
}
for _name, _fn in REDUCTIONS.items():
    _impl = (lambda fn: lambda x, *, axes: fn(x, axis=tuple(axes)))(_fn)
    _abstract = rule_from_impl(_impl, _reduced_shape)
    if _name in NO_IDENTITY:
        _abstract = _needs_elements(_name, _abstract)
    define(_name, _impl, _abstract, kind="reduction")


def _arg_impl(fn):
    return lambda x, *, axis, index_dtype: fn(x, axis=axis).astype(index_dtype)


for _name, _fn in {"argmax": np.argmax, "argmin": np.argmin}.items():
    define(_name, _arg_impl(_fn),
           _needs_elements(_name, lambda a, *, axis, index_dtype: AVal(
               tuple(_reduced_shape(a, axes=(axis,))), np.dtype(index_dtype))),
           kind="reduction")

CUMULATIVE = {"cumsum": np.cumsum, "cumprod": np.cumprod,
              "cummax": np.maximum.accumulate, "cummin": np.minimum.accumulate}


def _cumulative_impl(fn):
    def impl(x, *, axis, reverse=False):
        x = np.asarray(x)
        if reverse:
            return np.flip(fn(np.flip(x, axis), axis=axis), axis)
        return fn(x, axis=axis)
    return impl


for _name, _fn in CUMULATIVE.items():
    _impl = _cumulative_impl(_fn)
    define(_name, _impl, rule_from_impl(_impl, lambda a, **_: a.shape), kind="reduction")


