"""Derivatives of the collectives, as JAX defines them under pmap: psum, all_gather and
ppermute are linear (psum's transpose is psum: every example's cotangent reaches every
example; all_gather's is psum then each example's own slice; ppermute's is the inverse
permutation); pmax/pmin pass the summed cotangent to the examples attaining the extremum,
shared among ties; axis_index has none."""
import numpy as np

from astjax.core.bind import bind
from astjax.core.prims.collective import group_tables

from .rules import VJP, linear, no_derivative, tangent_rule
from .util import aval

linear("psum")
linear("all_gather")
linear("ppermute")
no_derivative("axis_index")


@VJP.register("psum")
def _psum(ct, x, out, **params):
    return [bind("psum", ct, **params)]


@VJP.register("all_gather")
def _all_gather(ct, x, out, *, axis_name, mapped_size, axis, tiled, **groups):
    total = bind("psum", ct, axis_name=axis_name, mapped_size=mapped_size, **groups)
    index = bind("axis_index", axis_name=axis_name, mapped_size=mapped_size)
    if groups:  # the example's place within its group
        place = group_tables(groups["axis_index_groups"], mapped_size)[2]
        index = bind("take", place, index, axis=0)
    shape = aval(x).shape
    piece = 1 if not tiled else shape[axis]
    starts = [0] * len(aval(total).shape)
    starts[axis] = bind("mul", index, np.int32(piece))
    sizes = list(aval(total).shape)
    sizes[axis] = piece
    taken = bind("dynamic_slice", total, *starts, slice_sizes=tuple(sizes))
    return [taken if tiled else bind("reshape", taken, new_sizes=tuple(shape))]


@VJP.register("ppermute")
def _ppermute(ct, x, out, *, axis_name, mapped_size, perm):
    inverse = tuple((dst, src) for src, dst in perm)
    return [bind("ppermute", ct, axis_name=axis_name, mapped_size=mapped_size, perm=inverse)]


def _hits(x, out, total):
    """1 where this example attains the extremum, divided by how many do (`total(v)` sums
    v over the examples the extremum was taken over)."""
    hit = bind("convert", bind("eq", x, out), dtype=aval(x).dtype.name)
    return bind("div", hit, total(hit))


def _over_axis(axis_name, mapped_size, groups):
    return lambda v: bind("psum", v, axis_name=axis_name, mapped_size=mapped_size, **groups)


def _extremum_vjp(ct, x, out, *, axis_name, mapped_size, **groups):
    """Every example's result is the extremum: their cotangents, summed, reach the
    examples attaining it."""
    total = _over_axis(axis_name, mapped_size, groups)
    return [bind("mul", total(ct), _hits(x, out, total))]


VJP.register("pmax")(_extremum_vjp)
VJP.register("pmin")(_extremum_vjp)


@tangent_rule("pmax", "pmin")
def _extremum_jvp(primals, tangents, out, *, axis_name, mapped_size, **groups):
    (x,), (t,) = primals, tangents
    if t is None:
        return None
    total = _over_axis(axis_name, mapped_size, groups)
    return total(bind("mul", t, _hits(x, out, total)))


# Across processes: process_allreduce(sum) and process_allgather are linear; the transpose of
# a sum over processes is a sum over processes, that of a gather the summed cotangent's own
# slice; max and min pass the cotangent to the processes attaining the extremum.
linear("process_allgather")
no_derivative("process_index")


def _over_processes(v):
    return bind("process_allreduce", v, op="sum")


@tangent_rule("process_allreduce")
def _process_allreduce_jvp(primals, tangents, out, *, op):
    (x,), (t,) = primals, tangents
    if t is None:
        return None
    if op != "sum":
        t = bind("mul", t, _hits(x, out, _over_processes))
    return _over_processes(t)


@VJP.register("process_allreduce")
def _process_allreduce_vjp(ct, x, out, *, op):
    if op != "sum":
        return [bind("mul", _over_processes(ct), _hits(x, out, _over_processes))]
    return [_over_processes(ct)]


@VJP.register("process_allgather")
def _process_allgather_vjp(ct, x, out, *, count):
    total = _over_processes(ct)
    shape = aval(x).shape
    starts = [bind("process_index")] + [np.int32(0)] * len(shape)
    mine = bind("dynamic_slice", total, *starts, slice_sizes=(1,) + tuple(shape))
    return [bind("reshape", mine, new_sizes=tuple(shape))]


# vma_sum is linear in the gradient it carries (and the primal is only its type's witness).
@tangent_rule("vma_sum")
def _vma_sum_jvp(primals, tangents, out, *, axis_names):
    return None if tangents[0] is None else bind("vma_sum", tangents[0], primals[1],
                                                 axis_names=axis_names)


@VJP.register("vma_sum")
def _vma_sum_vjp(ct, grad, primal, out, *, axis_names):
    return [ct, None]
