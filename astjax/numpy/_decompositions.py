"""The decompositions `jax.lax.linalg` has, each one primitive (see `astjax.core.prims.linalg`)
with JAX's signature and result order; `astjax.lax.linalg` re-exports them and
`astjax.numpy.linalg` builds on them."""
import numpy as np

from ..config import default_dtype
from ..errors import TransformError
from . import _util as u
from ._creation import _as_operand, arange
from ._elementwise import where
from ._reductions import sum as _sum
from ._shape import broadcast_to
from ._util import bind


def float_matrix(x, name):
    """x as an array of at least 2 dimensions with a floating dtype (integers are promoted to
    the default float, as JAX does)."""
    x = _as_operand(x)
    if u.ndim(x) < 2:
        raise u.ShapeError(f"linalg.{name} needs a matrix (at least 2 dimensions), got shape "
                           f"{u.shape(x)}")
    if not u.is_inexact(x):
        x = bind("convert", x, dtype=np.dtype(default_dtype("float")).name)
    return x


def mT(x):
    """x with its last two axes swapped."""
    nd = u.ndim(x)
    return bind("transpose", x, permutation=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def symmetrize(x):
    """(x + x^T) / 2 over the trailing two axes."""
    x = _as_operand(x)
    return bind("mul", bind("add", x, mT(x)), 0.5)


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor; NaN where x is not positive definite."""
    x = float_matrix(x, "cholesky")
    return bind("cholesky", symmetrize(x) if symmetrize_input else x)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    a, b = float_matrix(a, "triangular_solve"), float_matrix(b, "triangular_solve")
    dtype = np.result_type(u.dtype_of(a), u.dtype_of(b))
    a, b = (bind("convert", v, dtype=dtype.name) if u.dtype_of(v) != dtype else v for v in (a, b))
    return bind("triangular_solve", a, b, left_side=bool(left_side), lower=bool(lower),
                transpose_a=bool(transpose_a), conjugate_a=bool(conjugate_a),
                unit_diagonal=bool(unit_diagonal))


def lu(x):
    """(lu, pivots, permutation): LAPACK's getrf with partial pivoting."""
    return tuple(bind("lu", float_matrix(x, "lu")))


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation the row swaps `pivots` make, as a static composition of swaps."""
    pivots = _as_operand(pivots)
    batch = u.shape(pivots)[:-1]
    perm = broadcast_to(arange(permutation_size, dtype=np.int32), batch + (permutation_size,))
    index = arange(permutation_size, dtype=np.int32)
    for j in range(u.shape(pivots)[-1]):
        p = _column(pivots, j)
        at_p = bind("eq", index, p)
        moved = _sum(where(at_p, perm, 0), axis=-1, keepdims=True)
        perm = where(bind("eq", index, j), moved, where(at_p, _column(perm, j), perm))
    return bind("convert", perm, dtype="int32")


def _column(x, j):
    """x[..., j:j+1]."""
    shape = u.shape(x)
    return bind("slice", x, start_indices=(0,) * (len(shape) - 1) + (j,),
                limit_indices=tuple(shape[:-1]) + (j + 1,), strides=None)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    if pivoting:
        raise TransformError("qr with pivoting=True is not supported yet",
                             hint="use pivoting=False")
    return tuple(bind("qr", float_matrix(x, "qr"), full_matrices=bool(full_matrices)))


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None):
    """(v, w): eigenvectors as columns and ascending eigenvalues of a symmetric matrix."""
    x = float_matrix(x, "eigh")
    n = u.shape(x)[-1]
    if subset_by_index is not None and tuple(subset_by_index) != (0, n):
        raise TransformError("eigh: subset_by_index is not supported on CPU (as in JAX)")
    v, w = bind("eigh", symmetrize(x) if symmetrize_input else x, lower=bool(lower))
    return v, w


def eig(x, *, compute_left_eigenvectors: bool = False, compute_right_eigenvectors: bool = True,
        use_magma=None, implementation=None):
    """[w, (vl), (vr)]: the complex eigenvalues and (left/right, unit-norm) eigenvectors of a
    general square matrix."""
    x = float_matrix(x, "eig")
    return list(bind("eig", x, compute_left_eigenvectors=bool(compute_left_eigenvectors),
                     compute_right_eigenvectors=bool(compute_right_eigenvectors)))


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """(t, z) with x = z t z^H: the real Schur form of a real matrix, complex of a complex one."""
    if sort_eig_vals or select_callable is not None:
        raise TransformError("schur: sorting the eigenvalues is not supported (as in JAX)")
    outs = bind("schur", float_matrix(x, "schur"), compute_schur_vectors=bool(compute_schur_vectors))
    return tuple(outs)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """(u, s, vh), or s alone when compute_uv is False; s descending."""
    x = float_matrix(x, "svd")
    outs = bind("svd", x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, left, right = outs
    return left, s, right
