"""Reductions that ignore NaN: each replaces NaN by the reduction's identity and reduces.

As in NumPy and JAX: a slice of NaN only sums to 0 and multiplies to 1, its max/min/mean/var
are NaN, and its nanargmax/nanargmin is -1. Integer and bool inputs have no NaN and take the
plain reduction. (The quantiles are in `_quantiles`.)
"""
import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._elementwise import isnan, where
from ._reductions import (_cast, _count, _float_input, _no_extras, all, argmax, argmin,
                          cumprod, cumsum, max, mean, min, prod, sum)
from ._util import bind


def _without_nan(a, identity):
    a = _as_operand(a)
    return where(isnan(a), identity, a) if u.is_inexact(a) else a


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("nansum", initial, where, out)
    return sum(_without_nan(a, 0), axis, dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("nanprod", initial, where, out)
    return prod(_without_nan(a, 1), axis, dtype, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    return cumsum(_without_nan(a, 0), axis, dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    return cumprod(_without_nan(a, 1), axis, dtype)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("nanmax", initial, where, out)
    return _extreme(max, -np.inf, a, axis, keepdims)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _no_extras("nanmin", initial, where, out)
    return _extreme(min, np.inf, a, axis, keepdims)


def _extreme(reduce, identity, a, axis, keepdims):
    a = _as_operand(a)
    if not u.is_inexact(a):
        return reduce(a, axis, keepdims=keepdims)
    out = reduce(_without_nan(a, identity), axis, keepdims=keepdims)
    return where(all(isnan(a), axis, keepdims=keepdims), np.nan, out)


def nanargmax(a, axis=None, out=None, keepdims=None):
    return _arg_extreme(argmax, -np.inf, a, axis, bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
    return _arg_extreme(argmin, np.inf, a, axis, bool(keepdims))


def _arg_extreme(arg, identity, a, axis, keepdims):
    a = _as_operand(a)
    if not u.is_inexact(a):
        return arg(a, axis, keepdims=keepdims)
    out = arg(_without_nan(a, identity), axis, keepdims=keepdims)
    return where(all(isnan(a), axis, keepdims=keepdims), -1, out)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _no_extras("nanmean", where=where, out=out)
    a = _float_input(_as_operand(a), dtype)
    if not u.is_inexact(a):
        return mean(a, axis, keepdims=keepdims)
    total = sum(_without_nan(a, 0), axis, keepdims=keepdims)
    return bind("div", total, _valid_count(a, axis, keepdims))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    _no_extras("nanvar", where=where, out=out)
    a = _float_input(_as_operand(a), dtype)
    centered = bind("sub", a, nanmean(a, axis, keepdims=True))
    squares = bind("mul", centered, bind("conj", centered) if u.kind(a) == "c" else centered)
    squares = _without_nan(bind("real", squares) if u.kind(a) == "c" else squares, 0)
    n = _valid_count(a, axis, keepdims)
    denominator = bind("max", bind("sub", n, ddof), 0)
    return bind("div", sum(squares, axis, keepdims=keepdims), denominator)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    return bind("sqrt", nanvar(a, axis, dtype, out, ddof, keepdims, where))


def _valid_count(a, axis, keepdims):
    """How many non-NaN elements each result reduces, in a's real dtype."""
    if not u.is_inexact(a):
        return _count(a, axis)
    real = np.empty(0, u.dtype_of(a)).real.dtype
    return sum(_cast(bind("eq", a, a), real), axis, keepdims=keepdims)
