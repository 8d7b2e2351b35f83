"""The processes of a multi-process job (MPI ranks, joined by `astjax.distributed.initialize()`)
and the three operations that cross them: an all-reduce, an all-gather and this process' index.

A `pmap` whose mapped axis spans processes batches its collectives over the examples this
process holds and then combines the per-process results with these; every backend runs them
as host calls (NumPy directly, Numba from object mode, XLA as a host callback). They are MPI's
Allreduce and Allgather on `COMM_WORLD` through mpi4py: no transport of astjax's own.

Every process runs the same program on the same shapes, so the collectives are entered in the
same order everywhere, as MPI requires.
"""
import numpy as np

from ..errors import TransformError

_state: dict = {"comm": None}


def join(comm) -> None:
    """Make `comm` (an mpi4py communicator) the processes every collective spans."""
    _state["comm"] = comm


def leave() -> None:
    _state["comm"] = None


def joined() -> bool:
    return _state["comm"] is not None


def count() -> int:
    """How many processes there are (1 when none were joined)."""
    comm = _state["comm"]
    return 1 if comm is None else comm.Get_size()


def index() -> int:
    """This process' position among them (0 when none were joined)."""
    comm = _state["comm"]
    return 0 if comm is None else comm.Get_rank()


def _comm():
    comm = _state["comm"]
    if comm is None:
        raise TransformError("a collective across processes ran outside a distributed job",
                             hint="call astjax.distributed.initialize() first, under mpiexec")
    return comm


def allreduce(x, op: str) -> np.ndarray:
    """The elementwise sum, max or min of `x` over every process."""
    from mpi4py import MPI
    x = np.asarray(x, order="C")  # (ascontiguousarray would make a 0-d x 1-d)
    out = np.empty_like(x)
    _comm().Allreduce(x, out, op={"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN}[op])
    return out


def allgather(x) -> np.ndarray:
    """Every process' `x`, stacked along a new leading axis in process order."""
    comm = _comm()
    x = np.asarray(x, order="C")  # (ascontiguousarray would make a 0-d x 1-d)
    out = np.empty((comm.Get_size(),) + x.shape, x.dtype)
    comm.Allgather(x, out)
    return out
