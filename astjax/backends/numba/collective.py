"""Collectives never reach a Numba kernel: a map naming their axis (vmap, or pmap on this
backend, which runs as one) batches them into reductions first. One left over names an axis
no map binds: refused with its line. What crosses processes (a pmap across MPI ranks) is
left as process_allreduce/allgather/index, host calls made from object mode."""
import numpy as np

from astjax.errors import TransformError

from .emit import LOWER, dims, dtype_text, tuple_text
from .layout import out_aval


def _unbound(fe, eqn, ins, outs):
    raise TransformError(f"lax.{eqn.prim} over the axis {eqn.params['axis_name']!r} is outside "
                         "every map that names it", eqn.loc,
                         hint="call it inside pmap(f, axis_name=...) or vmap(f, axis_name=...)")


for _name in ("psum", "pmax", "pmin", "all_gather", "ppermute", "axis_index"):
    LOWER.set(_name, _unbound)


# Across processes: MPI through mpi4py, a Python call made from object mode (the call costs
# microseconds; the communication is MPI's).
def _scalar_type(aval) -> str:
    name = np.dtype(aval.dtype).name
    return "boolean" if name == "bool" else name


@LOWER.register("process_allreduce")
def _process_allreduce(fe, eqn, ins, outs):
    out = out_aval(eqn)
    if out.shape == ():
        return [f"with numba.objmode({outs[0]}={_scalar_type(out)!r}):",
                f"    {outs[0]} = rt.processes.allreduce({ins[0]}, {eqn.params['op']!r})[()]"]
    return [f"{outs[0]} = np.empty({tuple_text(dims(ins[0], out))}, {dtype_text(out.dtype)})",
            "with numba.objmode():",
            f"    {outs[0]}[...] = rt.processes.allreduce({ins[0]}, {eqn.params['op']!r})"]


@LOWER.register("process_allgather")
def _process_allgather(fe, eqn, ins, outs):
    out = out_aval(eqn)
    return [f"{outs[0]} = np.empty({tuple_text(dims(outs[0], out))}, {dtype_text(out.dtype)})",
            "with numba.objmode():",
            f"    {outs[0]}[...] = rt.processes.allgather({ins[0]})"]


@LOWER.register("process_index")
def _process_index(fe, eqn, ins, outs):
    return [f"with numba.objmode({outs[0]}='int32'):",
            f"    {outs[0]} = rt.processes.index()"]


@LOWER.register("vma_sum")
def _vma_sum(fe, eqn, ins, outs):
    return [f"{outs[0]} = {ins[0]}"]  # (the summing was done by batching over its axes)
