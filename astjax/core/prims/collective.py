"""Collectives over a named mapped axis: psum, pmax, pmin, all_gather, ppermute, axis_index.

Each carries `axis_name` and `mapped_size`, that axis' size (known while the mapped function is
compiled, see `core/axes.py`); psum, pmax, pmin and all_gather may carry `axis_index_groups`
(equal groups of positions partitioning the axis), and then act within each example's group.
They mean something only inside a map that names their axis: batching over that axis (vmap,
and pmap on the NumPy and Numba backends) rewrites them into reductions over the batch; the
XLA backend lowers them to cross-replica operations. Run on their own they are an error.
"""
import numpy as np

from ...errors import TransformError
from .. import processes
from ..avals import AVal
from ..primitives import define


def _outside(name):
    def impl(*operands, axis_name, **_):
        raise TransformError(f"lax.{name} over the axis {axis_name!r} ran outside a map that "
                             "names it", hint="call it inside pmap or vmap with that axis_name")
    return impl


def _same(a, **_):
    return a.strong()


for _name in ("psum", "pmax", "pmin"):
    define(_name, _outside(_name), _same, kind="collective")


def group_size(mapped_size: int, axis_index_groups=None) -> int:
    """How many examples a collective combines: the axis', or one group's."""
    return mapped_size if axis_index_groups is None else len(axis_index_groups[0])


def group_tables(groups, mapped_size: int) -> tuple:
    """Constants describing axis_index_groups: each group's positions (G, S), each
    position's group (N,) and each position's place within its group (N,)."""
    group_of, place = np.empty(mapped_size, np.int32), np.empty(mapped_size, np.int32)
    for g, members in enumerate(groups):
        group_of[list(members)] = g
        place[list(members)] = np.arange(len(members))
    return np.asarray(groups, np.int32), group_of, place


def _all_gather_abstract(a, *, axis_name, mapped_size, axis, tiled, axis_index_groups=None):
    count = group_size(mapped_size, axis_index_groups)
    shape = list(a.shape)
    if tiled:
        shape[axis] = shape[axis] * count
    else:
        shape.insert(axis, count)
    return AVal(tuple(shape), a.dtype)


# all_gather(x, axis_name=, mapped_size=, axis=k, tiled=False): every example's x, stacked at k
# (with axis_index_groups: the x of every example of its group)
define("all_gather", _outside("all_gather"), _all_gather_abstract, kind="collective")
# ppermute(x, perm=((src, dst), ...)): example dst gets src's x; examples no pair names get 0
define("ppermute", _outside("ppermute"), _same, kind="collective")
# axis_index(): this example's position along the axis (int32)
define("axis_index", _outside("axis_index"),
       lambda *, axis_name, mapped_size: AVal((), np.dtype(np.int32)),
       kind="collective")


# Across processes (see core/processes.py): what a collective over a pmap axis that spans
# processes leaves after batching has combined this process' own examples.
# process_allreduce(x, op="sum"|"max"|"min"): x combined elementwise over every process
define("process_allreduce", lambda x, *, op: processes.allreduce(x, op), _same,
       kind="collective")
# process_allgather(x, count=P): every one of the P processes' x, stacked along a new leading axis
define("process_allgather", lambda x, *, count: processes.allgather(x),
       lambda a, *, count: AVal((count,) + tuple(a.shape), a.dtype), kind="collective")
# process_index(): this process' position among them (int32)
define("process_index", lambda: np.int32(processes.index()),
       lambda: AVal((), np.dtype(np.int32)), kind="collective")


# vma_sum(ct, primal, axis_names=(...)): the gradient `ct` of `primal` inside shard_map, as
# JAX's shard_map types it (check_vma): over each of `axis_names` along which the gradient
# varies and its primal does not (a replicated parameter, a per-device loss), it is the sum
# over the axis. Batching over those axes does the summing (rewriters/batching/collective.py);
# what is left is `ct` itself.
define("vma_sum", lambda ct, primal, **_: ct, lambda c, p, **_: c, kind="collective")
