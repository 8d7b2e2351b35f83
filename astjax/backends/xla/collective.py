"""Collectives as cross-replica operations: under pmap on XLA each example of the mapped axis
is one replica (one device), so psum is an `all_reduce` over all replicas, all_gather an
`all_gather`, ppermute a `collective_permute`, axis_index the `replica_id`. A collective over
any other axis was batched away before this point; one that is left names no pmap. What
crosses processes (a pmap across MPI ranks) is a host call into MPI."""
import numpy as np

from astjax.core import processes
from astjax.errors import TransformError

from .emit import LOWER

COMBINE = {"psum": "stablehlo.add", "pmax": "stablehlo.maximum", "pmin": "stablehlo.minimum"}


def _groups(body, eqn) -> str:
    """The replica groups attribute: every replica (or the collective's axis_index_groups),
    when the collective names the pmap axis."""
    replicas = body.replicas
    if replicas is None or replicas[0] != eqn.params["axis_name"]:
        raise TransformError(f"lax.{eqn.prim} over the axis {eqn.params['axis_name']!r} is "
                             "outside every map that names it", eqn.loc,
                             hint="call it inside pmap(f, axis_name=...) with that name")
    groups = eqn.params.get("axis_index_groups") or (tuple(range(replicas[1])),)
    rows = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups)
    return f"replica_groups = dense<[{rows}]> : tensor<{len(groups)}x{len(groups[0])}xi64>"


def _all_reduce(prim):
    def lower(body, eqn, x):
        groups = _groups(body, eqn)
        region = body.region([(x.dtype, ())] * 2)
        region.ret([region.binary(COMBINE[prim], region.args[0], region.args[1])])
        return body.op("stablehlo.all_reduce", [x], [(x.shape, x.dtype)], groups,
                       [region.text()], hint=prim)
    return lower


for _prim in COMBINE:
    LOWER.set(_prim, _all_reduce(_prim))


@LOWER.register("all_gather")
def _all_gather(body, eqn, x):
    groups, p = _groups(body, eqn), eqn.params
    out = eqn.outs[0].aval
    if not p["tiled"]:  # stacked: gather along a new axis of size 1
        x = body.reshape(x, x.shape[:p["axis"]] + (1,) + x.shape[p["axis"]:])
    return [body.op1("stablehlo.all_gather", [x], out.shape, x.dtype,
                     f"all_gather_dim = {p['axis']} : i64, {groups}", hint="all_gather")]


@LOWER.register("ppermute")
def _ppermute(body, eqn, x):
    _groups(body, eqn)
    pairs = eqn.params["perm"]
    text = ", ".join(f"[{s}, {d}]" for s, d in pairs)
    return [body.op1("stablehlo.collective_permute", [x], x.shape, x.dtype,
                     f"source_target_pairs = dense<[{text}]> : tensor<{len(pairs)}x2xi64>",
                     hint="ppermute")]


@LOWER.register("axis_index")
def _axis_index(body, eqn):
    _groups(body, eqn)
    replica = body.op1("stablehlo.replica_id", [], (), np.uint32, hint="replica")
    return [body.convert(replica, np.int32)]


# Across processes (a pmap across MPI ranks): MPI through mpi4py, as host calls.
def _across(fn):
    def call(*arrays):
        return (np.asarray(fn(*arrays)),)
    call.crosses_processes = True  # every process must enter it (see Layout)
    return call


@LOWER.register("process_allreduce")
def _process_allreduce(body, eqn, x):
    op = eqn.params["op"]
    return body.host_call(_across(lambda a: processes.allreduce(a, op)), [x],
                          [(x.shape, x.dtype)], hint="across")


@LOWER.register("process_allgather")
def _process_allgather(body, eqn, x):
    return body.host_call(_across(processes.allgather), [x],
                          [((eqn.params["count"],) + x.shape, x.dtype)], hint="gathered")


@LOWER.register("process_index")
def _process_index(body, eqn):
    return body.host_call(_across(lambda: np.int32(processes.index())), [], [((), np.int32)],
                          hint="process")


@LOWER.register("vma_sum")
def _vma_sum(body, eqn, ct, primal):
    return [ct]  # (the summing was done by batching over its axes)
