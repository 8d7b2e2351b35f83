"""Reductions (`sum`, `mean`, `var`, ...), arg-reductions and cumulative sums.

`axis` may be None (all axes), an int, a negative int or a tuple; `keepdims` keeps reduced axes
as size 1. Dtypes follow NumPy: integer sums widen to int64, `mean`/`var` of integers are float64,
float32 stays float32.
"""
import math

import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._shape import ravel, reshape
from ._util import bind


def _reduce(prim, a, axis, keepdims, dtype=None):
    a = _as_operand(a)
    axes = u.normalize_axes(axis, u.ndim(a))
    if dtype is not None:  # accumulate in the asked dtype, and return it exactly
        a = _cast(a, dtype)
    out = bind(prim, a, axes=axes)
    if dtype is not None:
        out = _cast(out, dtype)
    return _keep(out, u.shape(a), axes) if keepdims else out


def _cast(x, dtype):
    dtype = u.dtype(dtype)
    return x if u.dtype_of(x) == dtype else bind("convert", x, dtype=dtype.name)


def _keep(out, in_shape, axes):
    return reshape(out, tuple(1 if i in axes else d for i, d in enumerate(in_shape)))


def _no_extras(name, initial=None, where=None, out=None):
    if initial is not None or where is not None or out is not None:
        raise u.DtypeError(f"{name}: initial=, where= and out= are not supported",
                           hint="mask with jnp.where before reducing")


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("sum", initial, where, out)
    return _reduce("reduce_sum", a, axis, keepdims, dtype)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("prod", initial, where, out)
    return _reduce("reduce_prod", a, axis, keepdims, dtype)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("max", initial, where, out)
    return _reduce("reduce_max", a, axis, keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("min", initial, where, out)
    return _reduce("reduce_min", a, axis, keepdims)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    _no_extras("all", where=where, out=out)
    return _reduce("reduce_and", a, axis, keepdims)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    _no_extras("any", where=where, out=out)
    return _reduce("reduce_or", a, axis, keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    return bind("sub", max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def count_nonzero(a, axis=None, keepdims=False):
    return sum(bind("ne", _as_operand(a), 0), axis, keepdims=keepdims)


# ---------------------------------------------------------------- moments
def _count(a, axis):
    """How many elements each result reduces (a symbolic size where the shape is)."""
    s = u.shape(a)
    return math.prod(s[i] for i in u.normalize_axes(axis, len(s)))


def _float_input(a, dtype):
    """mean/var accumulate integers and bools in JAX's float for them (float32 up to 32
    bits: NumPy's is float64)."""
    if dtype is not None:
        return _cast(a, dtype)
    return a if u.is_inexact(a) else _cast(a, u.inexact_type_of(a))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    _no_extras("mean", where=where, out=out)
    a = _float_input(_as_operand(a), dtype)
    return bind("div", sum(a, axis, keepdims=keepdims), _count(a, axis))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    _no_extras("var", where=where, out=out)
    a = _float_input(_as_operand(a), dtype)
    ddof = ddof if correction is None else correction
    centered = bind("sub", a, mean(a, axis, keepdims=True))
    squares = bind("mul", centered, centered)
    return bind("div", sum(squares, axis, keepdims=keepdims), _count(a, axis) - ddof)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, correction=None):
    variance = var(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction)
    return bind("sqrt", variance)


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        total = np.asarray(_count(_as_operand(a), axis), u.dtype_of(avg))
    else:
        a, weights = _as_operand(a), _as_operand(weights)
        weights = _weights_like(a, weights, axis)
        total = _weights_total(a, weights, axis, keepdims)
        avg = bind("div", sum(bind("mul", a, weights), axis, keepdims=keepdims), total)
    if returned and u.shape(total) != u.shape(avg):  # NumPy gives the total in avg's shape
        from ._shape import broadcast_to
        total = broadcast_to(total, u.shape(avg))
    return (avg, total) if returned else avg


def _weights_like(a, weights, axis):
    if u.shape(weights) == u.shape(a) or axis is None:
        return weights
    axis = u.normalize_axis(axis, u.ndim(a))
    return reshape(weights, tuple(u.shape(weights)[0] if i == axis else 1
                                  for i in range(u.ndim(a))))


def _weights_total(a, weights, axis, keepdims):
    from ._shape import broadcast_to
    return sum(broadcast_to(weights, u.shape(a)), axis, keepdims=keepdims)


# ---------------------------------------------------------------- arg-reductions and scans
def argmax(a, axis=None, out=None, keepdims=False):
    return _arg("argmax", a, axis, keepdims)


def argmin(a, axis=None, out=None, keepdims=False):
    return _arg("argmin", a, axis, keepdims)


def _arg(prim, a, axis, keepdims):
    a = _as_operand(a)
    in_shape = u.shape(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    out = bind(prim, a, axis=axis, index_dtype="int64")
    if not keepdims:
        return out
    if len(in_shape) != u.ndim(a):  # axis=None: every axis kept as 1
        return reshape(out, (1,) * len(in_shape))
    return _keep(out, in_shape, (axis,))


def cumsum(a, axis=None, dtype=None, out=None):
    return _cumulative("cumsum", a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("cumprod", a, axis, dtype)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumsum: `include_initial` puts the empty sum (0) first."""
    return _with_initial(cumsum, x, axis, dtype, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _with_initial(cumprod, x, axis, dtype, include_initial, 1)


def _with_initial(fn, x, axis, dtype, include_initial, initial):
    if axis is None:
        if u.ndim(x) > 1:
            raise u.ShapeError("cumulative_sum/prod of an array of more than one axis needs axis",
                               hint="pass axis=, or ravel the array first")
        axis = 0
    out = fn(x, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    axis = u.normalize_axis(axis, u.ndim(out))
    config = tuple((1, 0, 0) if d == axis else (0, 0, 0) for d in range(u.ndim(out)))
    return bind("pad", out, np.asarray(initial, u.dtype_of(out)), config=config)


def _cumulative(prim, a, axis, dtype):
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    if dtype is not None:
        a = _cast(a, dtype)
    out = bind(prim, a, axis=axis, reverse=False)
    if dtype is None and u.kind(a) in "iu":  # (JAX keeps an integer dtype; NumPy widens)
        return _cast(out, u.dtype_of(a))
    return out if dtype is None else _cast(out, dtype)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    from ._joining import concatenate
    from ._shape import _slice_axis
    a = _as_operand(a)
    axis = u.normalize_axis(axis, u.ndim(a))
    pieces = [p for p in (prepend, a, append) if p is not None]
    if len(pieces) > 1:
        a = concatenate([_diff_piece(p, a, axis) for p in pieces], axis)
    for _ in range(n):
        length = u.shape(a)[axis]
        a = bind("sub", _slice_axis(a, axis, 1, length), _slice_axis(a, axis, 0, length - 1))
    return a


def _diff_piece(piece, a, axis):
    from ._shape import broadcast_to
    piece = _as_operand(piece)
    if u.ndim(piece) == 0:
        s = u.shape(a)
        return broadcast_to(piece, s[:axis] + (1,) + s[axis + 1:])
    return piece
