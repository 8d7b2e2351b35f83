"""Linear algebra primitives, as `jax.lax.linalg` defines them. Each works on the trailing two
axes and maps over any leading (batch) axes.

    cholesky(a)                       L, lower, with a = L L^T (reads a's lower triangle); NaN
                                      where a is not positive definite, as JAX
    triangular_solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal)
                                      x with op(a) x = b (left side) or x op(a) = b
    lu(a)                             [lu, pivots, permutation]: LAPACK's getrf (partial
                                      pivoting), pivots and permutation int32
    qr(a, *, full_matrices)           [q, r]: LAPACK's geqrf/orgqr
    eigh(a, *, lower)                 [v, w]: eigenvectors (columns) and ascending eigenvalues,
                                      reading a's lower (or upper) triangle
    svd(a, *, full_matrices, compute_uv)
                                      [s, u, vt] (or [s]), s descending
    eig(a, *, compute_left_eigenvectors, compute_right_eigenvectors)
                                      [w, (vl), (vr)], complex: LAPACK's geev (unit 2-norm
                                      eigenvectors), NaN where it fails
    schur(a, *, compute_schur_vectors)
                                      [t, (z)] with a = z t z^H: LAPACK's gees, the real Schur
                                      form (2x2 blocks) of a real matrix, triangular if complex
"""
import numpy as np

from ...errors import DtypeError, ShapeError
from ..avals import AVal
from .elementwise import complex_dtype
from ..primitives import define


def _inexact(aval, name):
    if aval.dtype.kind not in "fc":
        raise DtypeError(f"linalg.{name} needs a floating-point matrix, got {aval.dtype.name}",
                         hint="convert it first, e.g. x.astype(jnp.float32)")
    return aval.dtype


def _matrix(aval, name, square=False):
    if aval.ndim < 2:
        raise ShapeError(f"linalg.{name} needs a matrix (at least 2 dimensions), got shape "
                         f"{aval.shape}")
    m, n = aval.shape[-2:]
    if square and m != n:
        raise ShapeError(f"linalg.{name} needs square matrices, got shape {aval.shape}")
    return aval.shape[:-2], m, n


# ---------------------------------------------------------------- cholesky
def _cholesky(a):
    a = np.asarray(a)
    out = np.full(a.shape, np.nan, a.dtype)
    for i in np.ndindex(a.shape[:-2]):
        try:
            out[i] = np.linalg.cholesky(a[i])
        except np.linalg.LinAlgError:
            pass  # not positive definite: NaN, as JAX
    return out


def _cholesky_abstract(a):
    _matrix(a, "cholesky", square=True)
    return AVal(a.shape, _inexact(a, "cholesky"))


define("cholesky", _cholesky, _cholesky_abstract, kind="linalg")


# ---------------------------------------------------------------- triangular_solve
def lower_left_form(a, b, *, left_side, lower, transpose_a):
    """(m, b', lower', transposed_result): the system as m x = b' with m's triangle `lower'`.
    A right-side solve x op(a) = b is op(a)^T x^T = b^T."""
    swap = np.swapaxes
    effective = swap(a, -1, -2) if transpose_a else a
    low = lower != transpose_a
    if left_side:
        return effective, b, low, False
    return swap(effective, -1, -2), swap(b, -1, -2), not low, True


def _triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                      conjugate_a=False, unit_diagonal=False):
    a, b = np.asarray(a), np.asarray(b)
    dtype = np.result_type(a, b)
    a = np.conj(a) if conjugate_a else a
    m, rhs, low, transposed = lower_left_form(a, b, left_side=left_side, lower=lower,
                                              transpose_a=transpose_a)
    x = _substitute(m.astype(dtype), rhs.astype(dtype), low, unit_diagonal)
    return np.swapaxes(x, -1, -2) if transposed else x


def _substitute(m, b, lower, unit):
    """Forward (lower) or backward substitution over the batch at once; like LAPACK's trsm, a
    zero on the diagonal gives inf/nan rather than an error."""
    n = m.shape[-1]
    x = np.zeros(np.broadcast_shapes(m.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            done = slice(0, i) if lower else slice(i + 1, n)
            row = b[..., i, :] - np.einsum("...k,...kj->...j", m[..., i, done], x[..., done, :])
            x[..., i, :] = row if unit else row / m[..., i, i][..., None]
    return x


def _triangular_solve_abstract(a, b, *, left_side=False, lower=False, transpose_a=False,
                               conjugate_a=False, unit_diagonal=False):
    batch, m, _ = _matrix(a, "triangular_solve", square=True)
    b_batch, rows, cols = _matrix(b, "triangular_solve")
    if batch != b_batch:
        raise ShapeError(f"triangular_solve: batch dimensions {batch} and {b_batch} differ")
    if (rows if left_side else cols) != m:
        raise ShapeError(f"triangular_solve: a is {m}x{m} but b has shape {b.shape} "
                         f"({'left' if left_side else 'right'} side)")
    _inexact(a, "triangular_solve")
    return AVal(b.shape, np.result_type(a.dtype, b.dtype))


define("triangular_solve", _triangular_solve, _triangular_solve_abstract, kind="linalg")


# ---------------------------------------------------------------- lu
def _lu(a):
    """getrf on every matrix at once: partial pivoting, columns with a zero pivot left as they
    are (LAPACK reports them in `info`; JAX returns the factors)."""
    lu = np.array(a, copy=True)
    *batch, m, n = lu.shape
    flat = lu.reshape((-1, m, n))
    k = min(m, n)
    pivots = np.zeros((flat.shape[0], k), np.int32)
    lanes = np.arange(flat.shape[0])
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(flat[:, j:, j]), axis=1)
            pivots[:, j] = p
            rows_j, rows_p = flat[lanes, j].copy(), flat[lanes, p].copy()
            flat[lanes, j], flat[lanes, p] = rows_p, rows_j
            pivot = flat[:, j, j]
            scale = np.where(pivot != 0, pivot, 1)
            flat[:, j + 1:, j] = np.where((pivot != 0)[:, None], flat[:, j + 1:, j] / scale[:, None],
                                          flat[:, j + 1:, j])
            flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    permutation = permutation_of(pivots, m)
    return [flat.reshape(lu.shape), pivots.reshape(tuple(batch) + (k,)),
            permutation.reshape(tuple(batch) + (m,))]


def permutation_of(pivots, m):
    """The row permutation the swaps `pivots` (row j swapped with pivots[j]) make."""
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), pivots.shape[:-1] + (m,)).copy()
    lanes = np.arange(perm.shape[0])
    for j in range(pivots.shape[-1]):
        p = pivots[..., j]
        a, b = perm[lanes, j].copy(), perm[lanes, p].copy()
        perm[lanes, j], perm[lanes, p] = b, a
    return perm


def _lu_abstract(a):
    batch, m, n = _matrix(a, "lu")
    dtype = _inexact(a, "lu")
    return [AVal(a.shape, dtype), AVal(batch + (min(m, n),), np.dtype(np.int32)),
            AVal(batch + (m,), np.dtype(np.int32))]


define("lu", _lu, _lu_abstract, kind="linalg", multiple_results=True)


# ---------------------------------------------------------------- qr
def _qr(a, *, full_matrices=True):
    q, r = np.linalg.qr(np.asarray(a), mode="complete" if full_matrices else "reduced")
    return [q, r]


def _qr_abstract(a, *, full_matrices=True):
    batch, m, n = _matrix(a, "qr")
    dtype = _inexact(a, "qr")
    k = m if full_matrices else min(m, n)
    return [AVal(batch + (m, k), dtype), AVal(batch + (k, n), dtype)]


define("qr", _qr, _qr_abstract, kind="linalg", multiple_results=True)


# ---------------------------------------------------------------- eigh
def _eigh(a, *, lower=True):
    w, v = np.linalg.eigh(np.asarray(a), UPLO="L" if lower else "U")
    return [v, w]


def _eigh_abstract(a, *, lower=True):
    batch, n, _ = _matrix(a, "eigh", square=True)
    dtype = _inexact(a, "eigh")
    return [AVal(a.shape, dtype), AVal(batch + (n,), np.dtype(dtype.char.lower()))]


define("eigh", _eigh, _eigh_abstract, kind="linalg", multiple_results=True)


# ---------------------------------------------------------------- svd
def _svd(a, *, full_matrices=True, compute_uv=True):
    a = np.asarray(a)
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False)]
    u, s, vt = np.linalg.svd(a, full_matrices=full_matrices)
    return [s, u, vt]


def _svd_abstract(a, *, full_matrices=True, compute_uv=True):
    batch, m, n = _matrix(a, "svd")
    dtype = _inexact(a, "svd")
    k = min(m, n)
    s = AVal(batch + (k,), np.dtype(dtype.char.lower()))
    if not compute_uv:
        return [s]
    rows, cols = (m, n) if full_matrices else (k, k)
    return [s, AVal(batch + (m, rows), dtype), AVal(batch + (cols, n), dtype)]


define("svd", _svd, _svd_abstract, kind="linalg", multiple_results=True)


# ---------------------------------------------------------------- eig
def _eig(a, *, compute_left_eigenvectors=False, compute_right_eigenvectors=True):
    import scipy.linalg
    a = np.asarray(a)
    dtype = complex_dtype(a.dtype)
    w = np.full(a.shape[:-1], np.nan, dtype)
    vl, vr = np.full(a.shape, np.nan, dtype), np.full(a.shape, np.nan, dtype)
    for i in np.ndindex(a.shape[:-2]):
        try:
            w[i], vl[i], vr[i] = scipy.linalg.eig(a[i], left=True, right=True,
                                                  check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            pass  # no convergence (or a non-finite matrix): NaN, as JAX
    return [w] + ([vl] if compute_left_eigenvectors else []) + \
        ([vr] if compute_right_eigenvectors else [])


def _eig_abstract(a, *, compute_left_eigenvectors=False, compute_right_eigenvectors=True):
    batch, n, _ = _matrix(a, "eig", square=True)
    dtype = complex_dtype(_inexact(a, "eig"))
    vectors = [compute_left_eigenvectors, compute_right_eigenvectors].count(True)
    return [AVal(batch + (n,), dtype)] + [AVal(a.shape, dtype)] * vectors


define("eig", _eig, _eig_abstract, kind="linalg", multiple_results=True)


# ---------------------------------------------------------------- schur
def _schur(a, *, compute_schur_vectors=True):
    import scipy.linalg
    a = np.asarray(a)
    t, z = np.full(a.shape, np.nan, a.dtype), np.full(a.shape, np.nan, a.dtype)
    output = "complex" if a.dtype.kind == "c" else "real"
    for i in np.ndindex(a.shape[:-2]):
        try:
            t[i], z[i] = scipy.linalg.schur(a[i], output=output, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            pass
    return [t, z] if compute_schur_vectors else [t]


def _schur_abstract(a, *, compute_schur_vectors=True):
    _matrix(a, "schur", square=True)
    dtype = _inexact(a, "schur")
    return [AVal(a.shape, dtype)] * (2 if compute_schur_vectors else 1)


define("schur", _schur, _schur_abstract, kind="linalg", multiple_results=True)
