"""Jitted linear algebra on (B, m, n) stacks, filling outputs the caller allocated.

Cholesky, QR, eigh and SVD call LAPACK through Numba's NumPy support; the triangular solve
and the LU factorisation (which Numba's NumPy does not expose) are loops here, with LAPACK's
conventions: no error on a zero pivot or a singular triangle (inf/nan flow on), and the
permutation is the one getrf's row swaps make. Rows are copied through `put`, never Numba's
slice assignment (see copy_runtime.put).
"""
import numba
import numpy as np

from .copy_runtime import put

njit = numba.njit(cache=True, error_model="numpy")


@njit
def cholesky_batch(a, out):
    """Lower factors; a matrix that is not positive definite gives NaN (as JAX)."""
    for i in range(a.shape[0]):
        failed = False
        try:
            put(out[i], np.linalg.cholesky(np.tril(a[i]) + np.tril(a[i], -1).T))
        except Exception:
            failed = True
        if failed:
            put(out[i], np.nan)


@njit
def lower_solve_batch(m, b, out, unit):
    """Forward substitution m x = b with m lower triangular (the other triangle unread)."""
    n, cols = b.shape[1], b.shape[2]
    for i in range(b.shape[0]):
        for r in range(n):
            for c in range(cols):
                acc = b[i, r, c]
                for k in range(r):
                    acc -= m[i, r, k] * out[i, k, c]
                out[i, r, c] = acc if unit else acc / m[i, r, r]


@njit
def lu_batch(a, lu, pivots, permutation):
    """getrf with partial pivoting on each matrix; columns with a zero pivot are left as they
    are (LAPACK reports them in `info`)."""
    m, n = a.shape[1], a.shape[2]
    for i in range(a.shape[0]):
        put(lu[i], a[i])
        for r in range(m):
            permutation[i, r] = r
        for j in range(min(m, n)):
            p, best = j, abs(lu[i, j, j])
            for r in range(j + 1, m):
                if abs(lu[i, r, j]) > best:
                    p, best = r, abs(lu[i, r, j])
            pivots[i, j] = p
            if p != j:
                for c in range(n):
                    lu[i, j, c], lu[i, p, c] = lu[i, p, c], lu[i, j, c]
                permutation[i, j], permutation[i, p] = permutation[i, p], permutation[i, j]
            pivot = lu[i, j, j]
            if pivot != 0:
                for r in range(j + 1, m):
                    lu[i, r, j] /= pivot
            for r in range(j + 1, m):
                f = lu[i, r, j]
                for c in range(j + 1, n):
                    lu[i, r, c] -= f * lu[i, j, c]


@njit
def qr_batch(a, q, r, full):
    """Reduced QR from LAPACK; the complete Q of a tall matrix is the reduced Q of the matrix
    padded with zero columns (whose reflectors are the identity)."""
    m, n = a.shape[1], a.shape[2]
    for i in range(a.shape[0]):
        if full and m > n:
            padded = np.zeros((m, m), a.dtype)
            put(padded[:, :n], a[i])
            qi, ri = np.linalg.qr(padded)
            put(q[i], qi)
            put(r[i], ri[:, :n])
        else:
            qi, ri = np.linalg.qr(np.ascontiguousarray(a[i]))
            put(q[i], qi)
            put(r[i], ri)


@njit
def eigh_batch(a, v, w, lower):
    for i in range(a.shape[0]):
        x = a[i] if lower else np.ascontiguousarray(a[i].T)
        # Numba's eigh reads the lower triangle; give it a symmetric matrix to be sure
        sym = np.tril(x) + np.tril(x, -1).T
        wi, vi = np.linalg.eigh(sym)
        put(w[i], wi)
        put(v[i], vi)


@njit
def svd_batch(a, s, u, vt, full):
    for i in range(a.shape[0]):
        ui, si, vti = np.linalg.svd(np.ascontiguousarray(a[i]), full_matrices=full)
        put(s[i], si)
        put(u[i], ui)
        put(vt[i], vti)


@njit
def singular_values_batch(a, s):
    """Singular values alone (Numba's svd computes the vectors too; they are dropped)."""
    for i in range(a.shape[0]):
        put(s[i], np.linalg.svd(np.ascontiguousarray(a[i]), full_matrices=False)[1])
