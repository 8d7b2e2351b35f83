"""Batching of the linear-algebra primitives: they map over leading axes already, so every
operand gets the batch axis first (an unbatched one is broadcast) and the primitive is bound
again; every result carries the batch at axis 0."""
from astjax.core.bind import bind
from astjax.core.primitives import PRIMITIVES

from .util import BATCH, batched


def _leading_batch(name):
    def rule(args, dims, *, axis_size, **params):
        out = bind(name, *(batched(x, d, axis_size) for x, d in zip(args, dims)), **params)
        if PRIMITIVES[name].multiple_results:
            return out, [0] * len(out)
        return out, 0
    return rule


for _name in ("cholesky", "triangular_solve", "lu", "qr", "eigh", "svd"):
    BATCH.set(_name, _leading_batch(_name))
