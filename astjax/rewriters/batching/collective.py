"""Batching of the collectives. Over the axis a collective names, the batch *is* its axis: psum
becomes a sum over the batch (the same for every example, so unbatched), all_gather the batch
itself moved to its place, ppermute a gather of examples, axis_index the batch positions. A
collective naming another (outer) axis is applied per example, its operand keeping the batch."""
import numpy as np

from astjax.core.bind import aval, bind

from .util import BATCH, batched, current_axis_name, moveaxis

REDUCE = {"psum": "reduce_sum", "pmax": "reduce_max", "pmin": "reduce_min"}


def _other_axis(name):
    def rule(args, dims, *, axis_size, **params):
        return bind(name, *args, **params), dims[0] if dims else None
    return rule


def _reduction(name):
    def rule(args, dims, *, axis_size, axis_name, mapped_size):
        if axis_name != current_axis_name():
            return _other_axis(name)(args, dims, axis_size=axis_size, axis_name=axis_name,
                                     mapped_size=mapped_size)
        (x,), (d,) = args, dims
        if d is None:  # the same value in every example
            if name != "psum":
                return x, None
            return bind("mul", x, np.asarray(axis_size, aval(x).dtype)), None
        return bind(REDUCE[name], x, axes=(0,)), None
    return rule


for _name in REDUCE:
    BATCH.set(_name, _reduction(_name))


@BATCH.register("all_gather")
def _all_gather(args, dims, *, axis_size, axis_name, mapped_size, axis, tiled):
    if axis_name != current_axis_name():
        return _other_axis("all_gather")(args, dims, axis_size=axis_size, axis_name=axis_name,
                                         mapped_size=mapped_size, axis=axis, tiled=tiled)
    x = batched(args[0], dims[0], axis_size)
    stacked = moveaxis(x, 0, axis)
    if not tiled:
        return stacked, None
    shape = list(aval(x).shape[1:])
    shape[axis] = shape[axis] * axis_size
    return bind("reshape", stacked, new_sizes=tuple(shape)), None


@BATCH.register("ppermute")
def _ppermute(args, dims, *, axis_size, axis_name, mapped_size, perm):
    if axis_name != current_axis_name():
        return _other_axis("ppermute")(args, dims, axis_size=axis_size, axis_name=axis_name,
                                       mapped_size=mapped_size, perm=perm)
    x = batched(args[0], dims[0], axis_size)
    source = np.full(axis_size, -1, np.int64)
    for src, dst in perm:
        source[dst] = src
    taken = bind("take", x, np.maximum(source, 0), axis=0)
    keep = (source >= 0).reshape((axis_size,) + (1,) * (aval(x).ndim - 1))
    return bind("select", keep, taken, bind("full", 0, shape=aval(x).shape,
                                             dtype=aval(x).dtype.name)), 0


@BATCH.register("axis_index")
def _axis_index(args, dims, *, axis_size, axis_name, mapped_size):
    if axis_name != current_axis_name():
        return bind("axis_index", axis_name=axis_name, mapped_size=mapped_size), None
    return bind("iota", dtype="int32", shape=(axis_size,), dimension=0), 0
