"""Functions whose result length depends on the data: nonzero, unique and the set operations.

On concrete input they return exactly NumPy's result. Inside a compiled function the length must
be static, so, as in JAX, they take `size=` (and `fill_value=` for the unused tail): the selected
elements are packed to the front by one scatter (each selected element goes to the position its
running count gives; the others are dropped).
"""
from collections import namedtuple

import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray, full
from ._elementwise import isnan, where
from ._joining import concatenate
from ._reductions import any as any_, cumsum
from ._selection import argsort, unravel_index
from ._shape import ravel, reshape
from ._util import bind

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _static(a):
    """a's NumPy value if it is concrete, else None."""
    return None if u.is_abstract(a) else np.asarray(a)


def _need_size(name, size):
    if size is None:
        raise u.concretization(f"{name}() has a result whose length depends on the values of "
                               "its input", hint=f"pass a static size= to {name}, or call it "
                                                 "outside jit")
    return u.static_int(size, f"{name}'s size")


def compact(keep, values, size, fill_value):
    """The values where keep holds, in order, in an array of static length `size` (padded with
    fill_value, truncated past size). keep and values are 1-D."""
    counts = cumsum(bind("convert", keep, dtype="int64"))
    target = where(keep, bind("sub", counts, 1), np.asarray(size, np.int64))
    out = full((size,), fill_value, u.dtype_of(values))
    return bind("scatter", out, target, values, axis=0, mode="set")


# ---------------------------------------------------------------- positions
def nonzero(a, *, size=None, fill_value=None):
    a = _as_operand(a)
    value = _static(a)
    if value is not None and size is None:
        return tuple(asarray(i) for i in np.nonzero(value))
    size = _need_size("nonzero", size)
    flat = ravel(bind("ne", a, 0))
    positions = bind("iota", dtype="int64", shape=(u.size(a),), dimension=0)
    packed = compact(flat, positions, size, -1)
    fills = fill_value if isinstance(fill_value, (tuple, list)) else \
        [0 if fill_value is None else fill_value] * max(u.ndim(a), 1)
    if u.ndim(a) == 0:
        return (where(bind("lt", packed, 0), fills[0], packed),)
    indices = unravel_index(bind("max", packed, 0), u.shape(a))
    return tuple(where(bind("lt", packed, 0), np.asarray(f, np.int64), i)
                 for i, f in zip(indices, fills))


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(_as_operand(a)), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    a = _as_operand(a)
    value = _static(a)
    if value is not None and size is None:
        return asarray(np.argwhere(value))
    from ._joining import stack
    columns = nonzero(a if u.ndim(a) else reshape(a, (1,)), size=size, fill_value=fill_value)
    out = stack(columns, axis=1)
    return out if u.ndim(a) else out[:, :0]


def extract(condition, arr, *, size=None, fill_value=0):
    condition, arr = ravel(_as_operand(condition)), ravel(_as_operand(arr))
    if _static(condition) is not None and size is None:
        return arr[asarray(np.flatnonzero(np.asarray(condition)))]
    size = _need_size("extract", size)
    return compact(bind("ne", condition, 0), arr, size, fill_value)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    condition, a = ravel(_as_operand(condition)), _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    value = _static(condition)
    if value is not None and size is None:
        from ._selection import take
        return take(a, asarray(np.flatnonzero(value[:u.shape(a)[axis]])), axis=axis)
    raise u.concretization("compress with an abstract condition has a data-dependent shape",
                           hint="use jnp.where(condition, a, fill) to keep the shape")


# ---------------------------------------------------------------- unique
def _sorted_firsts(values, equal_nan=True):
    """(sorted values, their positions in `values`, mask of each run's first element)."""
    order = argsort(values)
    s = values[order]
    n = u.shape(s)[0]
    if n == 0:
        return s, order, bind("ne", s, s)
    differs = bind("ne", s[1:], s[:-1])
    if equal_nan and u.is_inexact(s):
        differs = bind("bitwise_and", differs,
                       bind("bitwise_not", bind("bitwise_and", isnan(s[1:]), isnan(s[:-1]))))
    return s, order, concatenate([np.ones(1, bool), differs])


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    ar = _as_operand(ar)
    value = _static(ar)
    if value is not None and size is None:
        out = np.unique(value, return_index, return_inverse, return_counts, axis,
                        equal_nan=equal_nan)
        return tuple(asarray(o) for o in out) if isinstance(out, tuple) else asarray(out)
    if axis is not None:
        raise u.concretization("unique(axis=...) inside a compiled function is not supported",
                               hint="call it outside jit")
    size = _need_size("unique", size)
    flat = ravel(ar)
    s, order, first = _sorted_firsts(flat, equal_nan)
    fill = s[0] if fill_value is None else fill_value
    values = compact(first, s, size, fill)
    outs = [values]
    if return_index:
        outs.append(compact(first, order, size, 0))
    rank = bind("sub", cumsum(bind("convert", first, dtype="int64")), 1)
    if return_inverse:
        inverse = bind("scatter", full(u.shape(rank), 0, np.int64), order, rank, axis=0,
                       mode="set")
        outs.append(reshape(inverse, u.shape(ar)))
    if return_counts:
        from ._histograms import bincount
        outs.append(bincount(rank, length=size))
    return outs[0] if len(outs) == 1 else tuple(outs)


def unique_values(x, /, *, size=None, fill_value=None):
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    return UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    return UniqueInverseResult(*unique(x, return_inverse=True, size=size,
                                       fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, size=size, fill_value=fill_value))


# ---------------------------------------------------------------- set operations
def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    element, test = _as_operand(element), ravel(_as_operand(test_elements))
    if u.shape(test)[0] == 0:
        hit = bind("ne", element, element) if u.is_inexact(element) else \
            bind("lt", element, element)
    else:
        hit = any_(bind("eq", reshape(element, u.shape(element) + (1,)), test), axis=-1)
    return bind("bitwise_not", hit) if invert else hit


def _set_result(name, keep, s, size, fill_value):
    size = _need_size(name, size)
    fill = fill_value
    if fill is None:
        fill = s[0] if u.shape(s)[0] else np.zeros((), u.dtype_of(s))
    return compact(keep, s, size, fill)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    a, b = _as_operand(ar1), _as_operand(ar2)
    if _static(a) is not None and _static(b) is not None and size is None:
        return asarray(np.union1d(np.asarray(a), np.asarray(b)))
    return unique(concatenate([ravel(a), ravel(b)]), size=_need_size("union1d", size),
                  fill_value=fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    a, b = _as_operand(ar1), _as_operand(ar2)
    if _static(a) is not None and _static(b) is not None and size is None:
        out = np.intersect1d(np.asarray(a), np.asarray(b), assume_unique, return_indices)
        return tuple(asarray(o) for o in out) if return_indices else asarray(out)
    if return_indices:
        raise u.concretization("intersect1d(return_indices=True) inside a compiled function "
                               "is not supported", hint="call it outside jit")
    s, _, first = _sorted_firsts(ravel(a))
    keep = bind("bitwise_and", first, isin(s, b))
    return _set_result("intersect1d", keep, s, size, fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    a, b = _as_operand(ar1), _as_operand(ar2)
    if _static(a) is not None and _static(b) is not None and size is None:
        return asarray(np.setdiff1d(np.asarray(a), np.asarray(b), assume_unique))
    s, _, first = _sorted_firsts(ravel(a))
    keep = bind("bitwise_and", first, isin(s, b, invert=True))
    return _set_result("setdiff1d", keep, s, size, fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    a, b = _as_operand(ar1), _as_operand(ar2)
    if _static(a) is not None and _static(b) is not None and size is None:
        return asarray(np.setxor1d(np.asarray(a), np.asarray(b), assume_unique))
    s, _, first = _sorted_firsts(concatenate([ravel(a), ravel(b)]))
    keep = bind("bitwise_and", first, bind("ne", isin(s, a), isin(s, b)))
    return _set_result("setxor1d", keep, s, size, fill_value)
