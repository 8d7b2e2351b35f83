"""Shape primitives: broadcast_in_dim, reshape, transpose, rev, slice, pad, concatenate.

Parameters are static and keyword-only (`shape=(3, 4)`); array operands are positional.
"""
import math
import numpy as np

from ...errors import ShapeError
from ..avals import AVal
from ..primitives import define


def _same_dtype(shape_rule):
    return lambda a, **p: AVal(tuple(shape_rule(a, **p)), a.dtype, a.weak and False)


def _broadcast_in_dim(x, *, shape, broadcast_dimensions):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for src, dst in enumerate(broadcast_dimensions):
        expanded[dst] = x.shape[src]
    return np.broadcast_to(x.reshape(expanded), shape)


def _broadcast_in_dim_shape(a, *, shape, broadcast_dimensions):
    for src, dst in enumerate(broadcast_dimensions):
        if a.shape[src] not in (1, shape[dst]):
            raise ShapeError(f"cannot broadcast shape {a.shape} to {tuple(shape)}")
    return shape


def _reshape_shape(a, *, new_sizes):
    if math.prod(new_sizes) != a.size:
        raise ShapeError(f"cannot reshape an array of shape {a.shape} into shape {tuple(new_sizes)}")
    return new_sizes


def _slice(x, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return np.asarray(x)[tuple(slice(s, l, st) for s, l, st in
                               zip(start_indices, limit_indices, strides))]


def _slice_shape(a, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return [max(0, -(-(l - s) // st)) for s, l, st in zip(start_indices, limit_indices, strides)]


def _pad(x, value, *, config):
    x = np.asarray(x)
    out = x
    for axis, (lo, hi, interior) in enumerate(config):
        out = _pad_axis(out, value, axis, lo, hi, interior)
    return out


def _pad_axis(x, value, axis, lo, hi, interior):
    n = x.shape[axis]
    size = max(n + max(n - 1, 0) * interior, 0)
    shape = list(x.shape)
    shape[axis] = size
    body = np.full(shape, value, dtype=x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, size, interior + 1)
    body[tuple(index)] = x
    take = [slice(None)] * x.ndim
    take[axis] = slice(max(-lo, 0), size - max(-hi, 0))
    body = body[tuple(take)]
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(lo, 0), max(hi, 0))
    return np.pad(body, widths, constant_values=value)


def _pad_shape(a, v, *, config):
    return [lo + hi + d + max(d - 1, 0) * interior for d, (lo, hi, interior) in zip(a.shape, config)]


def _concatenate_abstract(*avals, dimension):
    first = avals[0]
    for a in avals[1:]:
        if a.ndim != first.ndim or any(x != y for i, (x, y) in enumerate(zip(a.shape, first.shape))
                                       if i != dimension):
            raise ShapeError(f"cannot concatenate shapes {first.shape} and {a.shape} "
                             f"along axis {dimension}")
    shape = list(first.shape)
    shape[dimension] = sum(a.shape[dimension] for a in avals)
    dtype = np.result_type(*[a.dtype for a in avals])
    return AVal(tuple(shape), dtype)


define("broadcast_in_dim", _broadcast_in_dim, _same_dtype(_broadcast_in_dim_shape), kind="shape")
define("reshape", lambda x, *, new_sizes: np.reshape(x, new_sizes), _same_dtype(_reshape_shape),
       kind="shape")
define("transpose", lambda x, *, permutation: np.transpose(x, permutation),
       _same_dtype(lambda a, *, permutation: [a.shape[p] for p in permutation]), kind="shape")
define("rev", lambda x, *, dimensions: np.flip(x, dimensions),
       _same_dtype(lambda a, **_: a.shape), kind="shape")
define("slice", _slice, _same_dtype(_slice_shape), kind="shape")
define("pad", _pad, lambda a, v, *, config: AVal(tuple(_pad_shape(a, v, config=config)), a.dtype),
       kind="shape")
define("concatenate", lambda *xs, dimension: np.concatenate(xs, axis=dimension),
       _concatenate_abstract, kind="shape")


