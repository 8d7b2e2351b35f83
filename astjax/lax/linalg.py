"""astjax.lax.linalg: JAX's `jax.lax.linalg` decompositions, with JAX's signatures."""
from ..numpy._decompositions import (cholesky, eig, eigh, lu, lu_pivots_to_permutation,  # noqa: F401
                                     qr, schur, svd, symmetrize, triangular_solve)
