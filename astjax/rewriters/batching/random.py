"""Batching of threefry2x32: its operands broadcast against each other like an elementwise
primitive's, so a batched operand is lifted to the common rank behind its batch axis."""
from astjax.core.bind import aval, bind

from .util import BATCH, lift_rank


@BATCH.register("threefry2x32")
def _threefry(args, dims, *, axis_size):
    rank = max(aval(x).ndim - (d is not None) for x, d in zip(args, dims))
    lifted = [x if d is None else lift_rank(x, rank) for x, d in zip(args, dims)]
    return bind("threefry2x32", *lifted), [0, 0]
