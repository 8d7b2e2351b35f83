"""Batching of elementwise primitives: operands broadcast against each other, so a batched
operand is lifted to the common rank behind its batch axis and the primitive applies as is."""
from astjax.core.bind import aval, bind
from astjax.core.primitives import PRIMITIVES

from .util import BATCH, lift_rank


def broadcasting(name):
    """The rule of a primitive whose operands broadcast together (elementwise ones, and
    threefry2x32 with its two results): batched results carry the batch axis first."""
    def batch_rule(args, dims, *, axis_size, **params):
        rank = max(aval(x).ndim - (d is not None) for x, d in zip(args, dims))
        lifted = [x if d is None else lift_rank(x, rank) for x, d in zip(args, dims)]
        outs = bind(name, *lifted, **params)
        return (outs, [0] * len(outs)) if isinstance(outs, list) else (outs, 0)
    return batch_rule


for _name, _prim in PRIMITIVES.items():
    if _prim.kind == "elementwise":  # includes select, clamp, convert, stop_gradient
        BATCH.set(_name, broadcasting(_name))
