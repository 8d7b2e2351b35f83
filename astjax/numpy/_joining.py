"""Joining and splitting arrays: concatenate, stack and its h/v/d/column forms, split, meshgrid.

Split points are static (the pieces' lengths are part of their types)."""
import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray
from ._shape import _slice_axis, broadcast_to, expand_dims, ravel, reshape
from ._util import bind


def concatenate(arrays, axis=0, dtype=None):
    arrays = [_as_operand(a) for a in arrays]
    if not arrays:
        raise u.ShapeError("need at least one array to concatenate")
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    rank = u.ndim(arrays[0])
    if rank == 0:
        raise u.ShapeError("zero-dimensional arrays cannot be concatenated",
                           hint="use jnp.stack, or jnp.atleast_1d first")
    out = bind("concatenate", *arrays, dimension=u.normalize_axis(axis, rank))
    return out if dtype is None else bind("convert", out, dtype=u.dtype(dtype).name)


def stack(arrays, axis=0, dtype=None):
    arrays = [_as_operand(a) for a in arrays]
    shapes = [u.shape(a) for a in arrays]
    if any(s != shapes[0] for s in shapes[1:]):  # (==, not a set: sizes may be symbolic)
        raise u.ShapeError(f"stack needs arrays of one shape, got {shapes}")
    axis = u.normalize_axis(axis, u.ndim(arrays[0]) + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis, dtype)


def vstack(tup, dtype=None):
    from ._shape import atleast_2d
    return concatenate([atleast_2d(a) for a in tup], 0, dtype)


def hstack(tup, dtype=None):
    from ._shape import atleast_1d
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, 0 if u.ndim(arrays[0]) == 1 else 1, dtype)


def dstack(tup, dtype=None):
    from ._shape import atleast_3d
    return concatenate([atleast_3d(a) for a in tup], 2, dtype)


def column_stack(tup):
    arrays = [_as_operand(a) for a in tup]
    arrays = [reshape(a, (-1, 1)) if u.ndim(a) < 2 else a for a in arrays]
    return concatenate(arrays, 1)


def append(arr, values, axis=None):
    if isinstance(values, (bool, int, float, complex)):  # weak: it takes arr's dtype, as in JAX
        values = asarray(values, dtype=u.result_type_of(_as_operand(arr), values))
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


def split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, even=True)


def array_split(ary, indices_or_sections, axis=0):
    return _split(ary, indices_or_sections, axis, even=False)


def _split(ary, sections, axis, even):
    ary = _as_operand(ary)
    axis = u.normalize_axis(axis, u.ndim(ary))
    n = u.shape(ary)[axis]
    bounds = _split_bounds(n, sections, even)
    return [_slice_axis(ary, axis, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _split_bounds(n, sections, even) -> list:
    if isinstance(sections, (list, tuple, np.ndarray)):
        cuts = [min(max(int(i) if i >= 0 else int(i) + n, 0), n) for i in sections]
        return [0] + cuts + [n]
    count = u.static_int(sections, "the number of sections")
    if count <= 0:
        raise u.ShapeError("split: the number of sections must be positive")
    if even and n % count:
        raise u.ShapeError(f"array split does not result in an equal division: {n} into {count}",
                           hint="use jnp.array_split for uneven pieces")
    base, extra = divmod(n, count)
    sizes = [base + 1] * extra + [base] * (count - extra)
    return [int(b) for b in np.concatenate([[0], np.cumsum(sizes)])]


def hsplit(ary, sections):
    return split(ary, sections, 1 if u.ndim(_as_operand(ary)) > 1 else 0)


def vsplit(ary, sections):
    return split(ary, sections, 0)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    xi = [ravel(x) for x in xi]
    rank = len(xi)
    shapes = [[1] * rank for _ in xi]
    for i, x in enumerate(xi):
        shapes[i][i] = u.shape(x)[0]
    if indexing == "xy" and rank > 1:
        for s in shapes:
            s[0], s[1] = s[1], s[0]
    grids = [reshape(x, tuple(s)) for x, s in zip(xi, shapes)]
    if sparse:
        return grids
    full = tuple(max(s[i] for s in shapes) for i in range(rank))
    return [broadcast_to(g, full) for g in grids]


def concat(arrays, /, *, axis=0):
    return concatenate(arrays, axis)


def unstack(x, /, *, axis=0):
    x = _as_operand(x)
    axis = u.normalize_axis(axis, u.ndim(x))
    from ._shape import squeeze
    return tuple(squeeze(_slice_axis(x, axis, i, i + 1), axis) for i in range(u.shape(x)[axis]))


def dsplit(ary, indices_or_sections):
    if u.ndim(_as_operand(ary)) < 3:
        raise u.ShapeError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def block(arrays):
    """An array assembled from nested lists of blocks (the innermost list joins along the last
    axis, the next one out along the one before, as in NumPy)."""
    depth = _list_depth(arrays)
    leaves = _block_leaves(arrays)
    rank = max([depth] + [u.ndim(_as_operand(x)) for x in leaves])
    return _assemble(arrays, depth, rank)


def _list_depth(x) -> int:
    if isinstance(x, tuple):
        raise u.ShapeError("block: use lists, not tuples, to nest blocks")
    if isinstance(x, list):
        if not x:
            raise u.ShapeError("block: lists cannot be empty")
        depths = {_list_depth(e) for e in x}
        if len(depths) != 1:
            raise u.ShapeError("block: the nesting depths of the lists differ")
        return 1 + depths.pop()
    return 0


def _block_leaves(x) -> list:
    return [leaf for e in x for leaf in _block_leaves(e)] if isinstance(x, list) else [x]


def _assemble(x, depth, rank):
    if not isinstance(x, list):
        x = _as_operand(x)
        return reshape(x, (1,) * (rank - u.ndim(x)) + u.shape(x))
    parts = [_assemble(e, depth - 1, rank) for e in x]
    return concatenate(parts, axis=rank - depth)
