"""Indexing primitives: take, take_along_axis (and its transpose), scatter, dynamic_slice,
dynamic_update_slice. Indices follow JAX: negative ones count from the end; reads clamp.
"""
import numpy as np

from ..avals import AVal
from ..primitives import define


def _clip_index(index, size):
    """JAX's index rule: negative indices count from the end, the rest is clamped in range."""
    index = np.asarray(index)
    index = np.where(index < 0, index + size, index)
    return np.clip(index, 0, max(size - 1, 0))


def _take(x, index, *, axis):
    x = np.asarray(x)
    return np.take(x, _clip_index(index, x.shape[axis]), axis=axis)


def _take_shape(a, i, *, axis):
    return AVal(a.shape[:axis] + i.shape + a.shape[axis + 1:], a.dtype)


def _take_along(x, index, *, axis):
    x = np.asarray(x)
    return np.take_along_axis(x, _clip_index(index, x.shape[axis]), axis=axis)


def _take_along_shape(a, i, *, axis):
    return AVal(tuple(np.broadcast_shapes(a.shape[:axis] + (1,) + a.shape[axis + 1:],
                                          i.shape[:axis] + (1,) + i.shape[axis + 1:])[:axis]
                      + (i.shape[axis],)
                      + np.broadcast_shapes(a.shape[axis + 1:], i.shape[axis + 1:])), a.dtype)


SCATTER_MODES = {"set": None, "add": np.add, "mul": np.multiply, "min": np.minimum,
                 "max": np.maximum}


def _scatter(x, index, updates, *, axis, mode):
    """x with x[..., index, ...] (at `axis`) combined with updates; out-of-range indices dropped."""
    out = np.array(x, copy=True)
    index = np.asarray(index)
    size = out.shape[axis]
    index = np.where(index < 0, index + size, index)
    keep = (index >= 0) & (index < size)
    moved = np.moveaxis(out, axis, 0)
    updates = np.broadcast_to(updates, index.shape + moved.shape[1:]).astype(out.dtype)
    index, updates = index[keep], updates[keep]
    if mode == "set":
        moved[index] = updates
    else:
        SCATTER_MODES[mode].at(moved, index, updates)
    return out


define("take", _take, _take_shape, kind="indexing")
define("take_along_axis", _take_along, _take_along_shape, kind="indexing")
define("scatter", _scatter, lambda a, i, u, *, axis, mode: a.strong(), kind="indexing")


def _dynamic_slice(x, *starts, slice_sizes):
    x = np.asarray(x)
    starts = [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, x.shape, slice_sizes)]
    return x[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes))].copy()


def _dynamic_update_slice(x, update, *starts):
    out = np.array(x, copy=True)
    update = np.asarray(update)
    starts = [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, out.shape, update.shape)]
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


define("dynamic_slice", _dynamic_slice,
       lambda a, *s, slice_sizes: AVal(tuple(slice_sizes), a.dtype), kind="indexing")
define("dynamic_update_slice", _dynamic_update_slice, lambda a, u, *s: a.strong(),
       kind="indexing")


# Only reverse mode introduces it: the transpose of take_along_axis.
def _take_along_transpose(ct, index, *, shape, axis):
    """The cotangent of x in take_along_axis(x, index, axis): ct added at the taken places."""
    out = np.zeros(shape, np.asarray(ct).dtype)
    index = np.asarray(index)
    index = np.clip(np.where(index < 0, index + shape[axis], index), 0, shape[axis] - 1)
    grids = list(np.indices(np.broadcast_shapes(index.shape, np.shape(ct)), sparse=True))
    grids[axis] = index
    np.add.at(out, tuple(grids), ct)
    return out


define("take_along_axis_transpose", _take_along_transpose,
       lambda ct, i, *, shape, axis: AVal(tuple(shape), ct.dtype), kind="indexing")
