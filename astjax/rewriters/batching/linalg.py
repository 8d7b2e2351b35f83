"""Batching of the linear-algebra primitives: they map over leading axes already, so every
operand gets the batch axis first (an unbatched one is broadcast) and the primitive is bound
again; every result carries the batch at axis 0."""
from .util import BATCH, leading_batch

for _name in ("cholesky", "triangular_solve", "lu", "qr", "eigh", "svd", "eig", "schur"):
    BATCH.set(_name, leading_batch(_name))
