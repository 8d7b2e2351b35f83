"""Batching rules for indexing: take, take_along_axis (and its transpose), scatter, dynamic_slice
and dynamic_update_slice.

When both the array and the indices vary per example, the indexed axis and the batch axis are
flattened into one and every lane's indices are offset by `lane * size`, so one whole-array
primitive serves all lanes. Dynamic slices with batched starts become gathers
(`take_along_axis` with iota + start indices) and masked selects.
"""
import numpy as np

from astjax.core.bind import aval, bind

from .util import BATCH, batched, lane_offsets, lift_rank, moveaxis


def _normalise(index, size: int):
    """JAX's index rule for gathers: negative counts from the end, then clamp into range."""
    wrapped = bind("select", bind("lt", index, 0), bind("add", index, size), index)
    return bind("clamp", 0, wrapped, max(size - 1, 0))


def _unsqueeze(x):
    """An unbatched operand as (1, *shape): NumPy-style gathers broadcast it over the lanes."""
    return bind("reshape", x, new_sizes=(1,) + tuple(aval(x).shape))


# ---------------------------------------------------------------- take
@BATCH.register("take")
def _take(args, dims, *, axis_size, axis):
    (x, index), (x_dim, i_dim) = args, dims
    if i_dim is None:
        return bind("take", x, index, axis=axis + 1), 0
    if x_dim is None:  # the result holds the index's batch axis at `axis`
        return moveaxis(bind("take", x, index, axis=axis), axis, 0), 0
    return _take_both(x, index, axis, axis_size), 0


def _take_both(x, index, axis, axis_size):
    """Per-lane x and indices: gather rows of x flattened to (B * n, rest...)."""
    shape = aval(x).shape
    n, rest = shape[axis + 1], shape[1:axis + 1] + shape[axis + 2:]
    rows = bind("reshape", moveaxis(x, axis + 1, 1), new_sizes=(axis_size * n,) + tuple(rest))
    index = _normalise(index, n)
    flat = bind("add", index, lane_offsets(axis_size, n, aval(index).ndim, aval(index).dtype))
    out = bind("take", rows, flat, axis=0)  # (B, *i, *pre, *post)
    k, pre = aval(index).ndim - 1, axis
    order = [0] + list(range(1 + k, 1 + k + pre)) + list(range(1, 1 + k)) \
        + list(range(1 + k + pre, aval(out).ndim))
    return bind("transpose", out, permutation=tuple(order))


# ---------------------------------------------------------------- take_along_axis
@BATCH.register("take_along_axis")
def _take_along_axis(args, dims, *, axis_size, axis):
    x, index = (a if d is not None else _unsqueeze(a) for a, d in zip(args, dims))
    return bind("take_along_axis", x, index, axis=axis + 1), 0


@BATCH.register("take_along_axis_transpose")
def _take_along_axis_transpose(args, dims, *, axis_size, shape, axis):
    ct, index = (a if d is not None else _unsqueeze(a) for a, d in zip(args, dims))
    return bind("take_along_axis_transpose", ct, index, shape=(axis_size,) + tuple(shape),
                axis=axis + 1), 0


# ---------------------------------------------------------------- scatter
@BATCH.register("scatter")
def _scatter(args, dims, *, axis_size, axis, mode):
    """Every operand batched, x flattened to (B * n, pre..., post...) and the indices offset per
    lane; indices out of range (which scatter drops) are sent out of the whole flat range."""
    (x, index, updates), (x_dim, i_dim, u_dim) = args, dims
    x = batched(x, x_dim, axis_size)
    shape = aval(x).shape
    n, rest = shape[axis + 1], shape[1:axis + 1] + shape[axis + 2:]
    rows = bind("reshape", moveaxis(x, axis + 1, 1), new_sizes=(axis_size * n,) + tuple(rest))
    index = batched(index, i_dim, axis_size)
    wrapped = bind("select", bind("lt", index, 0), bind("add", index, n), index)
    inside = bind("bitwise_and", bind("ge", wrapped, 0), bind("lt", wrapped, n))
    offsets = lane_offsets(axis_size, n, aval(index).ndim, aval(index).dtype)
    flat = bind("select", inside, bind("add", wrapped, offsets), axis_size * n)
    target = tuple(aval(index).shape) + tuple(rest)  # (B, *i, pre..., post...)
    updates = _updates_to(updates, u_dim, target)
    out = bind("scatter", rows, flat, updates, axis=0, mode=mode)
    out = bind("reshape", out, new_sizes=(axis_size, n) + tuple(rest))
    return moveaxis(out, 1, axis + 1), 0


def _updates_to(updates, dim, target):
    """Updates broadcast (NumPy's trailing alignment per example) to the batched `target`."""
    if dim is None:
        nd = aval(updates).ndim
        return bind("broadcast_in_dim", updates, shape=target,
                    broadcast_dimensions=tuple(range(len(target) - nd, len(target))))
    lifted = lift_rank(updates, len(target) - 1)
    return bind("broadcast_in_dim", lifted, shape=target,
                broadcast_dimensions=tuple(range(len(target))))


# ---------------------------------------------------------------- dynamic slices
@BATCH.register("dynamic_slice")
def _dynamic_slice(args, dims, *, axis_size, slice_sizes):
    (x, *starts), (x_dim, *s_dims) = args, dims
    if all(d is None for d in s_dims):
        return bind("dynamic_slice", x, 0, *starts, slice_sizes=(axis_size,) + tuple(slice_sizes)), 0
    x = batched(x, x_dim, axis_size)
    out = x
    for j, (start, n) in enumerate(zip(starts, slice_sizes)):  # one gather per axis
        size = aval(x).shape[j + 1]
        first = bind("clamp", 0, start, size - n)
        index = bind("add", _axis_iota(n, j, aval(x).ndim), _per_lane(first, aval(x).ndim))
        out = bind("take_along_axis", out, index, axis=j + 1)
    return out, 0


@BATCH.register("dynamic_update_slice")
def _dynamic_update_slice(args, dims, *, axis_size):
    """Batched starts: gather the update onto x's grid and select it where it lands."""
    (x, update, *starts), (x_dim, u_dim, *s_dims) = args, dims
    x, update = batched(x, x_dim, axis_size), batched(update, u_dim, axis_size)
    if all(d is None for d in s_dims):
        return bind("dynamic_update_slice", x, update, 0, *starts), 0
    ndim, spread, mask = aval(x).ndim, update, None
    for j, start in enumerate(starts):
        size, n = aval(x).shape[j + 1], aval(update).shape[j + 1]
        first = _per_lane(bind("clamp", 0, start, size - n), ndim)
        offset = bind("sub", _axis_iota(size, j, ndim), first)  # position within the update
        spread = bind("take_along_axis", spread, bind("clamp", 0, offset, max(n - 1, 0)),
                      axis=j + 1)
        hit = bind("bitwise_and", bind("ge", offset, 0), bind("lt", offset, n))
        mask = hit if mask is None else bind("bitwise_and", mask, hit)
    if aval(spread).dtype != aval(x).dtype:  # as dynamic_update_slice stores it into x
        spread = bind("convert", spread, dtype=aval(x).dtype.name)
    return bind("select", mask, spread, x), 0


def _axis_iota(n, j, ndim):
    """(1, ..., n, ..., 1): 0..n-1 along axis j + 1 of an ndim-dimensional batched array."""
    shape = tuple(n if k == j + 1 else 1 for k in range(ndim))
    return bind("iota", dtype="int64", shape=shape, dimension=j + 1)


def _per_lane(start, ndim):
    """A start index as (B, 1, ..., 1) int64 (an unbatched start stays a scalar)."""
    start = bind("convert", start, dtype=np.dtype("int64").name)
    return lift_rank(start, ndim - 1) if aval(start).ndim == 1 else start
