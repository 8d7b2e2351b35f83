"""astjax.lax.linalg: JAX's `jax.lax.linalg` decompositions, with JAX's signatures."""
from ..numpy._decompositions import (cholesky, eigh, lu, lu_pivots_to_permutation, qr,  # noqa: F401
                                     svd, symmetrize, triangular_solve)
