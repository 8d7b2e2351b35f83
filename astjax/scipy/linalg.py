"""astjax.scipy.linalg: SciPy's linear algebra with JAX's signatures, on the decomposition
primitives. As in `jax.scipy.linalg`, `cholesky` returns the upper factor unless lower=True,
`qr`'s default mode is 'full', `eigh` returns (w, v). The matrix functions (expm, polar, ...)
are in _matfuncs and _schur_functions, the special matrices (toeplitz, hilbert, ...) in _special_matrices."""
import numpy as np

from .. import numpy as jnp
from ..errors import TransformError
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._decompositions import (cholesky as _cholesky, eigh as _eigh, float_matrix, lu as _lu,
                                     lu_pivots_to_permutation, mT, qr as _qr, svd as _svd,
                                     triangular_solve)
from ..numpy.linalg import det, inv, lu_solve_permuted, matrix_rhs, pinv, solve as _solve  # noqa: F401
from ._matfuncs import expm, expm_frechet, hessenberg, polar, qr_multiply  # noqa: F401
from ._schur_functions import funm, rsf2csf, schur, solve_sylvester, sqrtm  # noqa: F401
from ._special_matrices import (circulant, companion, convolution_matrix, dft,  # noqa: F401
                                fiedler, fiedler_companion, hadamard, hankel, helmert, hilbert,
                                invhilbert, invpascal, leslie, pascal, toeplitz)


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    low = _cholesky(a)
    return low if lower else mT(low)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    c, lower = c_and_lower
    b, vector = matrix_rhs(b)
    if lower:  # L L^T x = b
        y = triangular_solve(c, b, left_side=True, lower=True)
        x = triangular_solve(c, y, left_side=True, lower=True, transpose_a=True)
    else:      # U^T U x = b
        y = triangular_solve(c, b, left_side=True, lower=False, transpose_a=True)
        x = triangular_solve(c, y, left_side=True, lower=False)
    return x[..., 0] if vector else x


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    lu, pivots, _ = _lu(a)
    return lu, pivots


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    lu, pivots = lu_and_piv
    if trans not in (0, 1, 2):
        raise u.ShapeError(f"lu_solve: trans={trans!r} must be 0, 1 or 2")
    perm = lu_pivots_to_permutation(pivots, u.shape(lu)[-2])
    b, vector = matrix_rhs(b)
    x = lu_solve_permuted(lu, perm, b.astype(u.dtype_of(lu)), transposed=trans != 0)
    return x[..., 0] if vector else x


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """(p, l, u) with a = p @ l @ u, or (p @ l, u) when permute_l."""
    a = float_matrix(a, "lu")
    packed, _, perm = _lu(a)
    m, n = u.shape(a)[-2:]
    k = min(m, n)
    low = jnp.tril(packed[..., :, :k], -1) + jnp.eye(m, k, dtype=u.dtype_of(a))
    up = jnp.triu(packed[..., :k, :])
    p = mT(jnp.eye(m, dtype=u.dtype_of(a))[perm])  # p[perm[i], i] = 1
    return (jnp.matmul(p, low), up) if permute_l else (p, low, up)


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug=None, check_finite: bool = True):
    transpose = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}
    if trans not in transpose:
        raise u.ShapeError(f"solve_triangular: trans={trans!r} must be 0, 1, 2, 'N', 'T' or 'C'")
    b, vector = matrix_rhs(b)
    x = triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose[trans],
                         unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    if assume_a in ("pos", "positive definite"):
        return cho_solve(cho_factor(_triangle_mirrored(a, lower), lower=True), b)
    if assume_a in ("sym", "her", "symmetric", "hermitian"):
        a = _triangle_mirrored(a, lower)
    return _solve(a, b)


def _triangle_mirrored(a, lower):
    """The symmetric matrix the given triangle of a describes (SciPy reads only that one)."""
    a = float_matrix(a, "solve")
    half = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    diag = jnp.tril(jnp.triu(a))
    return half + mT(half) + diag


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    if mode not in ("full", "economic", "r"):
        raise u.ShapeError(f"qr: mode={mode!r} is not supported", hint="use 'full', 'economic' "
                           "or 'r'")
    q, r = _qr(a, full_matrices=mode == "full", pivoting=pivoting)
    return (r,) if mode == "r" else (q, r)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, type: int = 1, check_finite: bool = True, subset_by_index=None,
         subset_by_value=None, driver=None):
    if b is not None:
        raise TransformError("eigh: the generalized problem (b=...) is not supported yet",
                             hint="reduce it with a Cholesky factor of b")
    v, w = _eigh(a, lower=lower, subset_by_index=subset_by_index)
    return w if eigvals_only else (w, v)


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None):
    """The eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e; all of them, or (select='i') those with indices in select_range."""
    if not eigvals_only:
        raise NotImplementedError("eigh_tridiagonal: only eigvals_only=True (as JAX)")
    if select not in ("a", "i"):
        raise NotImplementedError("eigh_tridiagonal: select must be 'a' or 'i' (a value range "
                                  "gives a data-dependent number of eigenvalues)")
    d, e = _as_operand(d), _as_operand(e)
    n = int(u.shape(d)[-1])
    matrix = jnp.zeros((n, n), np.result_type(u.dtype_of(d), u.dtype_of(e), np.float32))
    matrix = matrix + jnp.diag(d) + jnp.diag(e[:n - 1], 1) + jnp.diag(e[:n - 1], -1)
    w = _eigh(matrix)[1]
    if select == "i":
        low, high = (int(v) for v in select_range)
        w = w[low:high + 1]
    return w


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def block_diag(*arrs):
    arrs = [jnp.atleast_2d(_as_operand(x)) for x in arrs]
    if not arrs:
        return jnp.zeros((1, 0))
    dtype = np.result_type(*[u.dtype_of(x) for x in arrs])
    cols = sum(u.shape(x)[1] for x in arrs)
    blocks, col = [], 0
    for x in arrs:
        r, c = u.shape(x)
        blocks.append(jnp.pad(x.astype(dtype), ((0, 0), (col, cols - col - c))))
        col += c
    return jnp.concatenate(blocks, axis=0)
