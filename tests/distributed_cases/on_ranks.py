"""Run as `mpiexec -n P python on_ranks.py BACKEND OUT --mpi`: each rank joins the job, runs
every case's pmap on its share of the examples and writes its outputs (or the error) as JSON
to OUT/rank<r>.json. Without --mpi (and mpiexec) it is the single-process reference."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import astjax  # noqa: E402
from distributed_cases.inputs import CASES, X4  # noqa: E402
from pmap_cases import programs  # noqa: E402


def share(args, in_axes, rank, ranks):
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    return tuple(a if ax is None else np.split(a, ranks)[rank] for a, ax in zip(args, axes))


def run(backend, rank, ranks):
    results = {}
    for name, (fun, args, in_axes) in CASES.items():
        try:
            mapped = astjax.pmap(fun(), axis_name="i", in_axes=in_axes, backend=backend)
            out = mapped(*share(args(), in_axes, rank, ranks))
            results[name] = [np.asarray(leaf).tolist()
                             for leaf in astjax.tree_util.tree_leaves(out)]
        except Exception as e:  # reported, and the test fails on it
            results[name] = f"{type(e).__name__}: {e}"
    try:  # unequal shares: rank 0 maps 2 examples, the others 1
        astjax.pmap(programs.coupled_loss, axis_name="i", backend=backend)(X4[:2 if rank == 0
                                                                              else 1])
        results["unequal"] = "no error"
    except Exception as e:
        results["unequal"] = f"{type(e).__name__}: {e}"
    return results


if __name__ == "__main__":
    backend, out = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ["--mpi"]:
        astjax.distributed.initialize()
    rank, ranks = astjax.process_index(), astjax.process_count()
    with open(os.path.join(out, f"rank{rank}.json"), "w") as f:
        json.dump({"ranks": ranks, **run(backend, rank, ranks)}, f)
