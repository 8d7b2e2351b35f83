"""Batching of the collectives. Over the axis a collective names, the batch *is* its axis: psum
becomes a sum over the batch (the same for every example, so unbatched), all_gather the batch
itself moved to its place, ppermute a gather of examples, axis_index the batch positions. A
collective naming another (outer) axis is applied per example, its operand keeping the batch.

When the axis spans processes (a pmap across MPI ranks, `current_axis_processes() > 1`), the
batch is this process' equal share of the axis: the sums and extrema over it are combined
across processes (`process_allreduce`), the gathers gather every process' batch first
(`process_allgather`), and positions start at this process' offset (`process_index`)."""
import numpy as np

from astjax.core.bind import aval, bind
from astjax.core.prims.collective import group_size, group_tables

from .util import BATCH, batched, current_axis_name, current_axis_processes, moveaxis

REDUCE = {"psum": "reduce_sum", "pmax": "reduce_max", "pmin": "reduce_min"}
ACROSS = {"psum": "sum", "pmax": "max", "pmin": "min"}


def _other_axis(name):
    def rule(args, dims, *, axis_size, **params):
        return bind(name, *args, **params), dims[0] if dims else None
    return rule


def _reduction(name):
    def rule(args, dims, *, axis_size, axis_name, mapped_size, **groups):
        if axis_name != current_axis_name():
            return _other_axis(name)(args, dims, axis_size=axis_size, axis_name=axis_name,
                                     mapped_size=mapped_size, **groups)
        (x,), (d,) = args, dims
        if d is None:  # the same value in every example
            if name != "psum":
                return x, None
            count = group_size(mapped_size, **groups)
            return bind("mul", x, np.asarray(count, aval(x).dtype)), None
        if groups:
            members, group_of, _ = group_tables(groups["axis_index_groups"], mapped_size)
            grouped = bind("take", _whole_axis(x, d, axis_size), members, axis=0)
            per_group = bind(REDUCE[name], grouped, axes=(1,))
            return bind("take", per_group, _mine(group_of, axis_size), axis=0), 0
        total = bind(REDUCE[name], x, axes=(0,))
        if current_axis_processes() > 1:
            total = bind("process_allreduce", total, op=ACROSS[name])
        return total, None
    return rule


for _name in REDUCE:
    BATCH.set(_name, _reduction(_name))


def _whole_axis(x, d, axis_size):
    """The operand of every example of the axis, stacked in order along axis 0: this
    process' batch, or every process' batches one after another."""
    x = batched(x, d, axis_size)
    processes = current_axis_processes()
    if processes == 1:
        return x
    every = bind("process_allgather", x, count=processes)
    shape = aval(x).shape
    return bind("reshape", every, new_sizes=(processes * shape[0],) + tuple(shape[1:]))


def _first_position(axis_size):
    """The axis position of this process' first example (0 unless the axis spans processes)."""
    if current_axis_processes() == 1:
        return np.int32(0)
    return bind("mul", bind("process_index"), np.int32(axis_size))


def _mine(table, axis_size):
    """The entries of a per-position table for this process' own examples."""
    if current_axis_processes() == 1:
        return table
    return bind("dynamic_slice", table, _first_position(axis_size), slice_sizes=(axis_size,))


def _grouped_gather(x, d, axis_size, mapped_size, axis, tiled, groups):
    """all_gather within groups: each example stacks its own group's operands (batched)."""
    members, group_of, _ = group_tables(groups, mapped_size)
    grouped = bind("take", _whole_axis(x, d, axis_size), members, axis=0)   # (G, S, ...)
    mine = bind("take", grouped, _mine(group_of, axis_size), axis=0)      # (B, S, ...)
    stacked = moveaxis(mine, 1, axis + 1)
    if not tiled:
        return stacked, 0
    shape = list(aval(mine).shape[:1] + aval(mine).shape[2:])
    shape[axis + 1] = shape[axis + 1] * len(groups[0])
    return bind("reshape", stacked, new_sizes=tuple(shape)), 0


@BATCH.register("all_gather")
def _all_gather(args, dims, *, axis_size, axis_name, mapped_size, axis, tiled, **groups):
    if axis_name != current_axis_name():
        return _other_axis("all_gather")(args, dims, axis_size=axis_size, axis_name=axis_name,
                                         mapped_size=mapped_size, axis=axis, tiled=tiled,
                                         **groups)
    if groups:
        return _grouped_gather(args[0], dims[0], axis_size, mapped_size, axis, tiled,
                               groups["axis_index_groups"])
    x = _whole_axis(args[0], dims[0], axis_size)
    stacked = moveaxis(x, 0, axis)
    if not tiled:
        return stacked, None
    shape = list(aval(x).shape[1:])
    shape[axis] = shape[axis] * mapped_size
    return bind("reshape", stacked, new_sizes=tuple(shape)), None


@BATCH.register("ppermute")
def _ppermute(args, dims, *, axis_size, axis_name, mapped_size, perm):
    if axis_name != current_axis_name():
        return _other_axis("ppermute")(args, dims, axis_size=axis_size, axis_name=axis_name,
                                       mapped_size=mapped_size, perm=perm)
    x = _whole_axis(args[0], dims[0], axis_size)
    source = np.full(mapped_size, -1, np.int32)
    for src, dst in perm:
        source[dst] = src
    index, keep = _mine(np.maximum(source, 0), axis_size), _mine(source >= 0, axis_size)
    taken = bind("take", x, index, axis=0)
    keep = bind("broadcast_in_dim", keep, shape=aval(taken).shape, broadcast_dimensions=(0,))
    return bind("select", keep, taken, bind("full", 0, shape=aval(taken).shape,
                                             dtype=aval(taken).dtype.name)), 0


@BATCH.register("axis_index")
def _axis_index(args, dims, *, axis_size, axis_name, mapped_size):
    if axis_name != current_axis_name():
        return bind("axis_index", axis_name=axis_name, mapped_size=mapped_size), None
    positions = bind("iota", dtype="int32", shape=(axis_size,), dimension=0)
    if current_axis_processes() == 1:
        return positions, 0
    return bind("add", positions, _first_position(axis_size)), 0


# The across-process collectives are elementwise across processes: batched operands keep
# their batch where it is (process_allgather's moves one place down, under the new axis).
@BATCH.register("process_allreduce")
def _process_allreduce(args, dims, *, axis_size, op):
    return bind("process_allreduce", args[0], op=op), dims[0]


@BATCH.register("process_allgather")
def _process_allgather(args, dims, *, axis_size, count):
    return bind("process_allgather", args[0], count=count), None if dims[0] is None else \
        dims[0] + 1


@BATCH.register("process_index")
def _process_index(args, dims, *, axis_size):
    return bind("process_index"), None


@BATCH.register("vma_sum")
def _vma_sum(args, dims, *, axis_size, axis_names):
    """Over one of its axes, a gradient that varies where its primal does not is summed over
    the batch; the equation stays for the maps outside (their axes may be named too)."""
    ct, primal = args
    if current_axis_name() in axis_names and dims[0] is not None and dims[1] is None:
        total = bind("reduce_sum", ct, axes=(0,))
        return bind("vma_sum", total, primal, axis_names=axis_names), None
    return bind("vma_sum", ct, primal, axis_names=axis_names), dims[0]
