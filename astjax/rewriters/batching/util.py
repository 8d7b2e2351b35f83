"""Helpers shared by the batching rules.

The table `BATCH` holds one rule per primitive (`BATCH.register(name)`), with the contract:

    rule(args, dims, *, axis_size, **params) -> (out, out_dim)        one result
                                             -> (outs, out_dims)      multiple_results

`args` are the (already batched) operands, `dims[i]` is 0 when args[i] carries the batch axis
(always first) and None when it is the same for every example. Rules emit table primitives
with `bind`, so their output is ordinary core form that every other transformation handles.
"""
import contextlib
import threading

import numpy as np

from astjax.core.bind import aval, bind
from astjax.core.primitives import PRIMITIVES, RuleTable

BATCH = RuleTable("batch", "rule(args, dims, *, axis_size, **params) -> (out, out_dim)")


_axis = threading.local()


def current_axis_name():
    """The name of the axis being batched (vmap's axis_name), None if it has none."""
    return getattr(_axis, "name", None)


def current_axis_processes() -> int:
    """How many processes the axis being batched spans (a pmap across MPI ranks batches its
    own examples and combines the processes' results); 1 for every other map."""
    return getattr(_axis, "processes", 1)


@contextlib.contextmanager
def batching_axis(name, processes: int = 1):
    """While batching over an axis called `name`, of which this process holds one of
    `processes` equal parts (nested bodies inherit it)."""
    outer = current_axis_name(), current_axis_processes()
    _axis.name, _axis.processes = name, processes
    try:
        yield
    finally:
        _axis.name, _axis.processes = outer


def moveaxis(x, src: int, dst: int):
    """x with axis `src` moved to position `dst` (a transpose, or x itself when in place)."""
    ndim = aval(x).ndim
    src, dst = src % ndim, dst % ndim
    if src == dst:
        return x
    order = [i for i in range(ndim) if i != src]
    order.insert(dst, src)
    return bind("transpose", x, permutation=tuple(order))


def batched(x, dim, axis_size: int):
    """x with its batch axis at 0: an unbatched x is broadcast to (axis_size, *shape)."""
    if dim is not None:
        return x
    shape = aval(x).shape
    return bind("broadcast_in_dim", x, shape=(axis_size,) + tuple(shape),
                broadcast_dimensions=tuple(range(1, len(shape) + 1)))


def leading_batch(name):
    """The rule of a primitive that maps over its operands' leading axes already: the batch
    axis goes first on every operand (an unbatched one is broadcast) and the primitive is bound
    again; every result carries the batch at axis 0."""
    def rule(args, dims, *, axis_size, **params):
        out = bind(name, *(batched(x, d, axis_size) for x, d in zip(args, dims)), **params)
        if PRIMITIVES[name].multiple_results:
            return out, [0] * len(out)
        return out, 0
    return rule


def lift_rank(x, rank: int):
    """A batched x of shape (B, *s) as (B, 1, ..., 1, *s) with `rank` dims after the batch axis,
    so that NumPy broadcasting (which aligns trailing dims) meets unbatched operands correctly."""
    shape = aval(x).shape
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return x
    return bind("reshape", x, new_sizes=(shape[0],) + (1,) * missing + tuple(shape[1:]))


def lane_mask(pred, like):
    """A batched (B,) predicate shaped (B, 1, ..., 1) to select between batched values `like`."""
    return lift_rank(pred, aval(like).ndim - 1)


def lane_offsets(axis_size: int, stride: int, ndim: int, dtype):
    """(B, 1, ..., 1) (ndim dims in all) holding b * stride: per-lane offsets into a flat axis."""
    lanes = bind("iota", dtype=np.dtype(dtype).name, shape=(axis_size,), dimension=0)
    offsets = bind("mul", lanes, np.asarray(stride, dtype))
    return bind("reshape", offsets, new_sizes=(axis_size,) + (1,) * (ndim - 1))


def shift(axes, by: int = 1) -> tuple:
    return tuple(a + by for a in axes)


def along_axis(name, key):
    """Primitives with one axis parameter (`axis` or `dimension`): shift it past the batch."""
    def batch_rule(args, dims, *, axis_size, **params):
        params[key] = params[key] + 1
        return bind(name, args[0], **params), 0
    return batch_rule
