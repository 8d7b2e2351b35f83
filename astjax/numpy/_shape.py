"""Shape manipulation: reshape, transpose, broadcasting, joining and splitting, flips and rolls.

All static shape arithmetic happens here in Python; each function emits the few structural
primitives it needs and skips those that would change nothing (no reshape to the same shape).
"""
import math
import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._util import bind


def shape(a):
    return u.shape(_as_operand(a))


def ndim(a):
    return u.ndim(_as_operand(a))


def size(a, axis=None):
    s = shape(a)
    return u.size(a) if axis is None else s[u.normalize_axis(axis, len(s))]


# ---------------------------------------------------------------- reshape family
def reshape(a, newshape=None, order="C", *, shape=None):
    a = _as_operand(a)
    if order != "C":
        raise u.ShapeError(f"reshape: order={order!r} is not supported", hint="use order='C'")
    target = _resolve_reshape(u.shape(a), newshape if shape is None else shape)
    return a if target == u.shape(a) and u.is_abstract(a) else bind("reshape", a, new_sizes=target)


def _resolve_reshape(old: tuple, new) -> tuple:
    new = u.static_shape(new)
    total = math.prod(old)
    unknown = [i for i, d in enumerate(new) if d == -1]
    known = math.prod([d for d in new if d != -1])
    if len(unknown) > 1 or any(d < -1 for d in new):
        raise u.ShapeError(f"cannot reshape {old} into {new}", hint="use at most one -1")
    if unknown:
        if known == 0 or total % known:
            raise u.ShapeError(f"cannot reshape an array of shape {old} into shape {new}",
                               hint=f"the size {total} must be divisible by {known}")
        new = new[:unknown[0]] + (total // known,) + new[unknown[0] + 1:]
    if math.prod(new) != total:
        raise u.ShapeError(f"cannot reshape an array of shape {old} (size {total}) into {new}",
                           hint="the number of elements must stay the same")
    return new


def ravel(a, order="C"):
    return reshape(a, (-1,), order)


def expand_dims(a, axis):
    a = _as_operand(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    rank = u.ndim(a) + len(axes)
    axes = u.normalize_axes(axes, rank)
    dims = iter(u.shape(a))
    return reshape(a, tuple(1 if i in axes else next(dims) for i in range(rank)))


def squeeze(a, axis=None):
    a = _as_operand(a)
    s = u.shape(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(s) if d == 1)
    else:
        axes = u.normalize_axes(axis, len(s))
    for i in axes:
        if s[i] != 1:
            raise u.ShapeError(f"cannot squeeze axis {i} of shape {s}: its size is not 1")
    return reshape(a, tuple(d for i, d in enumerate(s) if i not in axes))


def atleast_1d(*arys):
    return _each(arys, lambda a: reshape(a, (1,)) if u.ndim(a) == 0 else a)


def atleast_2d(*arys):
    def lift(a):
        return reshape(a, (1,) * (2 - u.ndim(a)) + u.shape(a)) if u.ndim(a) < 2 else a
    return _each(arys, lift)


def atleast_3d(*arys):
    def lift(a):
        s = u.shape(a)
        padded = {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}
        return reshape(a, padded[len(s)]) if len(s) < 3 else a
    return _each(arys, lift)


def _each(arys, fn):
    out = tuple(fn(_as_operand(a)) for a in arys)
    return out[0] if len(out) == 1 else out


# ---------------------------------------------------------------- axes order
def transpose(a, axes=None):
    a = _as_operand(a)
    rank = u.ndim(a)
    if axes is None:
        perm = tuple(reversed(range(rank)))
    else:
        perm = tuple(u.normalize_axis(i, rank) for i in axes)
        if sorted(perm) != list(range(rank)):
            raise u.ShapeError(f"transpose: axes {tuple(axes)} are not a permutation of "
                               f"{rank} axes")
    if perm == tuple(range(rank)):
        return a
    return bind("transpose", a, permutation=perm)


def swapaxes(a, axis1, axis2):
    rank = ndim(a)
    perm = list(range(rank))
    i, j = u.normalize_axis(axis1, rank), u.normalize_axis(axis2, rank)
    perm[i], perm[j] = perm[j], perm[i]
    return transpose(a, perm)


def moveaxis(a, source, destination):
    rank = ndim(a)
    src = [u.normalize_axis(s, rank) for s in _as_seq(source)]
    dst = [u.normalize_axis(d, rank) for d in _as_seq(destination)]
    if len(src) != len(dst):
        raise u.ShapeError("moveaxis: source and destination need the same number of axes")
    rest = [i for i in range(rank) if i not in src]
    perm = [None] * rank
    for s, d in zip(src, dst):
        perm[d] = s
    rest_iter = iter(rest)
    return transpose(a, [p if p is not None else next(rest_iter) for p in perm])


def _as_seq(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def matrix_transpose(x):
    return swapaxes(x, -1, -2)


# ---------------------------------------------------------------- broadcasting
def broadcast_shapes(*shapes):
    from ..core.prims.elementwise import broadcast_shapes as shapes_rule
    return shapes_rule(*[u.static_shape(s) for s in shapes])


def broadcast_to(array, shape):
    array = _as_operand(array)
    shape = u.static_shape(shape)
    old = u.shape(array)
    if len(shape) < len(old) or broadcast_shapes(old, shape) != shape:
        raise u.ShapeError(f"cannot broadcast an array of shape {old} to shape {shape}",
                           hint="axes are matched from the right; each must be 1 or equal")
    if old == shape and u.is_abstract(array):
        return array
    dims = tuple(range(len(shape) - len(old), len(shape)))
    return bind("broadcast_in_dim", array, shape=shape, broadcast_dimensions=dims)


def broadcast_arrays(*args):
    args = [_as_operand(a) for a in args]
    target = broadcast_shapes(*[u.shape(a) for a in args])
    return [broadcast_to(a, target) for a in args]


# ---------------------------------------------------------------- flips and rolls
def flip(m, axis=None):
    m = _as_operand(m)
    dims = u.normalize_axes(axis, u.ndim(m))
    return bind("rev", m, dimensions=dims) if dims else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = _as_operand(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), u.shape(a))
    shifts, axes = _as_seq(shift), _as_seq(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    for s, ax in zip(shifts, axes):
        a = _roll_axis(a, s, u.normalize_axis(ax, u.ndim(a)))
    return a


def _roll_axis(a, shift, axis):
    n = u.shape(a)[axis]
    if n == 0:
        return a
    if u.is_abstract(shift):  # a run-time shift: gather from (i - shift) mod n
        index = bind("rem", bind("sub", bind("iota", dtype="int64", shape=(n,), dimension=0),
                                 shift), n)
        return bind("take", a, index, axis=axis)
    shift = int(shift) % n
    if shift == 0:
        return a
    return bind("concatenate", _slice_axis(a, axis, n - shift, n),
                _slice_axis(a, axis, 0, n - shift), dimension=axis)


def _slice_axis(a, axis, start, stop, step=1):
    s = u.shape(a)
    starts = tuple(start if i == axis else 0 for i in range(len(s)))
    limits = tuple(stop if i == axis else d for i, d in enumerate(s))
    strides = tuple(step if i == axis else 1 for i in range(len(s)))
    return bind("slice", a, start_indices=starts, limit_indices=limits, strides=strides)


# ---------------------------------------------------------------- repeat and tile
def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """`total_repeat_length` fixes the result's length, so that `repeats` may be computed: a
    longer result is cut, a shorter one repeats its last element (as JAX)."""
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
        if np.ndim(repeats) > 1 or u.ndim(repeats) > 1:
            repeats = ravel(repeats)
    axis = u.normalize_axis(axis, u.ndim(a))
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, int(total_repeat_length))
    if u.is_abstract(repeats):
        raise u.concretization("repeat: the number of repeats must be static",
                               hint="the result's length depends on it; pass a Python int, or "
                                    "the length as total_repeat_length")
    if np.ndim(repeats) == 0:
        return _repeat_each(a, int(repeats), axis)
    # per-element counts: a static gather
    index = np.repeat(np.arange(u.shape(a)[axis]), np.asarray(repeats))
    return bind("take", a, index, axis=axis)


def _repeat_to_length(a, repeats, axis, length):
    """Each element's run of repeats starts where the running total of the ones before it
    ends: a mark there (a scatter-add), summed along the result, is the element's index
    (runs past `length` drop out; the last element fills what the runs leave)."""
    n = u.shape(a)[axis]
    counts = bind("broadcast_in_dim", _as_operand(repeats), shape=(n,),
                  broadcast_dimensions=() if u.ndim(repeats) == 0 else (0,))
    ends = bind("cumsum", counts, axis=0, reverse=False)
    dtype = u.dtype_of(ends).name
    starts = bind("slice", ends, start_indices=(0,), limit_indices=(max(n - 1, 0),),
                  strides=None)
    marks = bind("scatter", bind("full", 0, shape=(length,), dtype=dtype), starts,
                 bind("full", 1, shape=(max(n - 1, 0),), dtype=dtype), axis=0, mode="add")
    index = bind("min", bind("cumsum", marks, axis=0, reverse=False), max(n - 1, 0))
    return bind("take", a, index, axis=axis)


def _repeat_each(a, count, axis):
    s = u.shape(a)
    wide = s[:axis + 1] + (count,) + s[axis + 1:]
    dims = tuple(i for i in range(len(wide)) if i != axis + 1)
    spread = bind("broadcast_in_dim", a, shape=wide, broadcast_dimensions=dims)
    return reshape(spread, s[:axis] + (s[axis] * count,) + s[axis + 1:])


def tile(A, reps):
    A = _as_operand(A)
    reps = u.static_shape(reps)
    rank = max(len(reps), u.ndim(A))
    reps = (1,) * (rank - len(reps)) + reps
    s = (1,) * (rank - u.ndim(A)) + u.shape(A)
    interleaved = tuple(d for pair in zip(reps, s) for d in pair)
    spread = bind("broadcast_in_dim", A, shape=interleaved,
                  broadcast_dimensions=tuple(range(2 * rank - 2 * u.ndim(A) + 1, 2 * rank, 2)))
    return reshape(spread, tuple(r * d for r, d in zip(reps, s)))


def permute_dims(a, /, axes=None):
    return transpose(a, axes)


def rollaxis(a, axis, start=0):
    """NumPy's older moveaxis: axis moved to before position start."""
    rank = ndim(a)
    axis = u.normalize_axis(axis, rank)
    start = start + rank if start < 0 else start
    if not 0 <= start <= rank:
        raise u.ShapeError(f"rollaxis: start {start} is out of range for rank {rank}")
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else _as_operand(a)


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times, from the first axis towards the second."""
    m = _as_operand(m)
    rank = u.ndim(m)
    a0, a1 = (u.normalize_axis(ax, rank) for ax in axes)
    if a0 == a1:
        raise u.ShapeError("rot90: the two axes must differ")
    k = u.static_int(k, "rot90's k") % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    if k == 1:
        return swapaxes(flip(m, a1), a0, a1)
    return flip(swapaxes(m, a0, a1), a1)


def resize(a, new_shape):
    """a's elements repeated (in order) to fill new_shape."""
    a = ravel(_as_operand(a))
    new_shape = u.static_shape(new_shape)
    total = math.prod(new_shape)
    n = u.shape(a)[0]
    if n == 0 or total == 0:
        from ._creation import zeros
        return zeros(new_shape, u.dtype_of(a))
    repeats = -(-total // n)
    if repeats > 1:
        a = tile(a, repeats)
    return reshape(_slice_axis(a, 0, 0, total), new_shape)
