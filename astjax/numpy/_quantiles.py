"""Order statistics: quantile, percentile, median and their NaN-ignoring forms.

One algorithm serves all of them: sort along the reduced axes (merged into the last one; NaN
sorts last), find each quantile's fractional position among the values that count, read the
two neighbours with take_along_axis and interpolate as `method` says (NumPy's methods: linear,
lower, higher, midpoint, nearest). `q` may be an array, static or not; the result has q's shape
in front of the reduced shape, as in NumPy.
"""
import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray
from ._elementwise import where
from ._reductions import _float_input, sum
from ._selection import sort, take_along_axis
from ._shape import broadcast_to, moveaxis, reshape
from ._util import bind

METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    return _quantile("quantile", a, q, axis, method, keepdims, weights, ignore_nan=False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    return _quantile("nanquantile", a, q, axis, method, keepdims, weights, ignore_nan=True)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    return quantile(a, _percent(q), axis, method=method, keepdims=keepdims, weights=weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    return nanquantile(a, _percent(q), axis, method=method, keepdims=keepdims, weights=weights)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return quantile(a, 0.5, axis, keepdims=keepdims)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return nanquantile(a, 0.5, axis, keepdims=keepdims)


def _percent(q):
    if isinstance(q, (int, float)):
        return q / 100
    return bind("div", _as_operand(q), 100)


def _quantile(name, a, q, axis, method, keepdims, weights, ignore_nan):
    if method not in METHODS:
        raise u.DtypeError(f"{name}: method={method!r} is not supported",
                           hint=f"use one of {', '.join(METHODS)}")
    if weights is not None:
        raise u.DtypeError(f"{name}: weights= is not supported", hint="leave weights unset")
    a = _float_input(_as_operand(a), None)
    in_shape = u.shape(a)
    axes = u.normalize_axes(axis, len(in_shape))
    values = _axes_last(a, axes)  # kept shape + (n,)
    q = _as_quantile(q, u.dtype_of(a))
    kept = u.shape(values)[:-1]
    q_shape = u.shape(q)
    q = reshape(q, q_shape + (1,) * len(kept) + (1,))
    ordered = broadcast_to(sort(values, axis=-1), q_shape + u.shape(values))
    count = _count(values, ignore_nan, u.dtype_of(a))
    out = _interpolate(ordered, bind("mul", q, bind("sub", count, 1)), count, method)
    if ignore_nan:
        out = where(bind("eq", count, 0), np.nan, out)
    out = reshape(out, q_shape + kept)
    if keepdims:
        out = reshape(out, q_shape + tuple(1 if i in axes else d for i, d in enumerate(in_shape)))
    return out


def _axes_last(a, axes):
    """a with the reduced axes moved to the end and merged into one."""
    rank = u.ndim(a)
    kept = [i for i in range(rank) if i not in axes]
    moved = moveaxis(a, axes, tuple(range(len(kept), rank))) if axes else a
    s = u.shape(moved)
    n = 1
    for d in s[len(kept):]:
        n = n * d
    return reshape(moved, s[:len(kept)] + (n,))


def _as_quantile(q, dtype):
    """q in the input's float dtype (a Python float must not widen float32)."""
    if isinstance(q, (int, float, list, tuple)) or isinstance(q, np.ndarray):
        return asarray(np.asarray(q, dtype))
    q = _as_operand(q)
    return q if u.dtype_of(q) == dtype else bind("convert", q, dtype=dtype.name)


def _count(values, ignore_nan, dtype):
    """How many values each quantile is taken among (NaN excluded if asked), shape (..., 1)."""
    n = u.shape(values)[-1]
    if not ignore_nan:
        return np.asarray(n, dtype)
    valid = bind("convert", bind("eq", values, values), dtype=dtype.name)
    return sum(valid, axis=-1, keepdims=True)


def _interpolate(ordered, position, count, method):
    """The value at fractional `position` (shape q + kept + (1,)) of each sorted row."""
    last = bind("sub", count, 1)
    lo = bind("floor", position)
    hi = bind("min", bind("add", lo, 1), bind("max", last, 0))
    if method == "lower":
        return _at(ordered, lo)
    if method == "higher":
        return _at(ordered, bind("ceil", position))
    if method == "nearest":
        return _at(ordered, bind("round", position))  # half to even, as NumPy
    below, above = _at(ordered, lo), _at(ordered, hi)
    if method == "midpoint":
        return bind("mul", bind("add", below, above), 0.5)
    frac = bind("sub", position, lo)
    return bind("add", below, bind("mul", bind("sub", above, below), frac))


def _at(ordered, position):
    index = bind("convert", bind("max", position, 0), dtype="int64")
    index = broadcast_to(index, u.shape(ordered)[:-1] + (1,))
    return take_along_axis(ordered, index, axis=-1, mode="promise_in_bounds")
