"""Multi-process jobs, as `jax.distributed`: one process per MPI rank, each passing `pmap` its
own share of the mapped axis, the collectives spanning every rank.

    import astjax as jax
    jax.distributed.initialize()       # launched with: mpiexec -n 4 python train.py
    step = jax.pmap(train_step, axis_name="batch")
    params = step(params, my_shard)    # lax.pmean(grads, "batch") averages over all ranks

The transport is MPI (mpi4py over the MPI library it finds: `pip install 'astjax[mpi]'`
installs mpi4py and MPICH). The NumPy, Numba and XLA backends all take part; on each, a
collective over the pmap's axis combines this process' examples and then the processes'
results (MPI Allreduce/Allgather). Every process must run the same program and map the same
number of examples.
"""
from .core import processes
from .errors import AstjaxError


class DistributedError(AstjaxError):
    pass


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cluster_detection_method=None, initialization_timeout=300,
               coordinator_bind_address=None, **ignored) -> None:
    """Join the MPI job this process was launched in (by `mpiexec`/`srun`). JAX's arguments
    are accepted; MPI's launcher already knows the coordinator, so `num_processes` and
    `process_id`, when given, are only checked against it."""
    if processes.joined():
        raise DistributedError("astjax.distributed.initialize() was called twice",
                               hint="call it once, at the start of the program")
    try:
        from mpi4py import MPI
    except Exception as e:  # not installed, or its MPI library failed to start
        raise DistributedError(f"astjax.distributed needs mpi4py and a working MPI library "
                               f"({type(e).__name__}: {e})",
                               hint="pip install 'astjax[mpi]', then launch with "
                                    "mpiexec -n N python program.py") from None
    comm = MPI.COMM_WORLD
    for given, actual, what in ((num_processes, comm.Get_size(), "num_processes"),
                                (process_id, comm.Get_rank(), "process_id")):
        if given is not None and int(given) != actual:
            raise DistributedError(f"{what}={given} but MPI launched this process with "
                                   f"{actual}", hint=f"leave {what} out: MPI's launcher sets it")
    processes.join(comm)


def shutdown() -> None:
    """Leave the job (MPI itself finalizes when the process exits)."""
    processes.leave()


def is_initialized() -> bool:
    return processes.joined()


def process_index() -> int:
    """This process' rank (0 in a single-process program)."""
    return processes.index()


def process_count() -> int:
    """How many processes the job has (1 in a single-process program)."""
    return processes.count()
