"""The matrix functions of scipy.linalg that go through the Schur form: schur itself, rsf2csf,
sqrtm (Bjorck and Hammarling), funm (Parlett's recurrence) and solve_sylvester
(Bartels and Stewart).

The triangular recurrences fill one superdiagonal at a time: with the diagonals below d known
and the d-th still zero, (R @ R)[i, i+d] is exactly the sum over the entries strictly between,
so each superdiagonal is one matrix product and a division, for all i and any batch at once.
"""
import numpy as np

import astjax.numpy as jnp

from ..numpy._decompositions import eig, float_matrix, mT, schur as _schur, triangular_solve
from ._util import as_complex


def _diagonal_mask(n, d):
    return np.eye(n, k=d, dtype=bool)


def _h(x):
    return jnp.conj(mT(x))


def schur(a, output: str = "real"):
    """(T, Z) with a = Z T Z^H: the real Schur form (2x2 blocks for complex pairs), or the
    complex (upper triangular) one."""
    if output not in ("real", "complex", "r", "c"):
        raise ValueError("schur: output must be 'real' or 'complex'")
    a = float_matrix(a, "schur")
    if output in ("complex", "c"):
        a = as_complex(a)
    return _schur(a)


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form from a real one: each 2x2 block rotated to triangular by a
    unitary Givens rotation (the eigenvalue with positive imaginary part first, as LAPACK)."""
    t, z = as_complex(float_matrix(T, "rsf2csf")), as_complex(float_matrix(Z, "rsf2csf"))
    n = int(t.shape[-1])
    eps = float(np.finfo(t.real.dtype).eps)
    for m in range(n - 1, 0, -1):
        a, b = t[..., m - 1, m - 1], t[..., m - 1, m]
        c, d = t[..., m, m - 1], t[..., m, m]
        coupled = jnp.abs(c) > eps * (jnp.abs(a) + jnp.abs(d))
        half = (a + d) / 2
        root = jnp.sqrt((a - d) ** 2 / 4 + b * c)
        root = jnp.where(jnp.imag(root) < 0, -root, root)
        mu = half + root - d
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(c) ** 2)
        safe = jnp.where(coupled & (r > 0), r, 1.0)
        cos = jnp.where(coupled, mu / safe, 1.0)
        sin = jnp.where(coupled, c / safe, 0.0)
        g = _embedded_rotation(n, m, cos, sin, t.dtype)
        t = g @ t @ _h(g)
        z = z @ _h(g)
        t = jnp.where((np.arange(n)[:, None] == m) & (np.arange(n)[None, :] == m - 1), 0, t)
    return t, z


def _embedded_rotation(n, m, cos, sin, dtype):
    """The identity but for [[conj(c), s], [-s, c]] at rows and columns m-1, m."""
    eye = jnp.broadcast_to(jnp.eye(n, dtype=dtype), cos.shape + (n, n))
    rows, cols = np.arange(n)[:, None], np.arange(n)[None, :]
    entries = {(m - 1, m - 1): jnp.conj(cos), (m - 1, m): sin, (m, m - 1): -sin, (m, m): cos}
    g = eye
    for (i, j), value in entries.items():
        g = jnp.where((rows == i) & (cols == j), value[..., None, None], g)
    return g


def sqrtm(A, blocksize: int = 1):
    """The principal square root of A (complex, as JAX), by the complex Schur form."""
    if blocksize != 1:
        raise NotImplementedError("sqrtm: only blocksize=1 (as JAX)")
    t, z = schur(A, output="complex")
    n = int(t.shape[-1])
    diag = jnp.sqrt(jnp.diagonal(t, axis1=-2, axis2=-1))
    r = diag[..., :, None] * jnp.eye(n, dtype=t.dtype)
    denominator = diag[..., :, None] + diag[..., None, :]
    for d in range(1, n):
        inner = r @ r
        safe = jnp.where(denominator == 0, 1.0, denominator)
        value = jnp.where(t == inner, 0.0, (t - inner) / safe)
        r = jnp.where(_diagonal_mask(n, d), value, r)
    return z @ r @ _h(z)


def funm(A, func, disp: bool = True):
    """func(A) for a function func of a scalar applied to A's Schur form's diagonal, extended
    to the triangle by Parlett's recurrence (distinct eigenvalues)."""
    t, z = schur(A, output="complex")
    n = int(t.shape[-1])
    values = jnp.asarray(func(jnp.diagonal(t, axis1=-2, axis2=-1))).astype(t.dtype)
    f = values[..., :, None] * jnp.eye(n, dtype=t.dtype)
    gaps = jnp.diagonal(t, axis1=-2, axis2=-1)
    gaps = gaps[..., None, :] - gaps[..., :, None]  # t[j, j] - t[i, i]
    safe = jnp.where(gaps == 0, 1.0, gaps)
    for d in range(1, n):
        f = jnp.where(_diagonal_mask(n, d), (t @ f - f @ t) / safe, f)
    out = z @ f @ _h(z)
    if disp:
        return out
    tol = float(np.finfo(out.real.dtype).eps)
    upper = np.triu(np.ones((n, n), bool), 1)
    smallest = jnp.min(jnp.where(upper, jnp.abs(gaps), np.inf), axis=(-2, -1))
    smallest = jnp.where((smallest == 0) | ~jnp.isfinite(smallest), tol, smallest)
    off = jnp.max(jnp.sum(jnp.abs(jnp.where(upper, t, 0)), axis=-2), axis=-1)
    error = jnp.minimum(1.0, jnp.maximum(tol, tol / smallest * off))
    return out, jnp.where(jnp.any(jnp.isinf(out)), np.inf, error)


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """X with A X + X B = C: A = U R U^H and B = V S V^H (complex Schur), then R Y + Y S = F
    with F = U^H C V one column at a time, (R + S[k, k]) y_k = f_k - sum_(j<k) S[j, k] y_j.
    NaN where A and -B share an eigenvalue (to within tol), as JAX."""
    if method not in ("schur", "eigen"):
        raise ValueError("solve_sylvester: method must be 'schur' or 'eigen'")
    a, b = float_matrix(A, "solve_sylvester"), float_matrix(B, "solve_sylvester")
    c = jnp.asarray(C)
    r, u = schur(a, output="complex")
    s, v = schur(b, output="complex")
    f = _h(u) @ c.astype(r.dtype) @ v
    n = int(s.shape[-1])
    eye = jnp.eye(int(r.shape[-1]), dtype=r.dtype)
    columns = []
    for k in range(n):
        rhs = f[..., :, k]
        for j in range(k):
            rhs = rhs - s[..., j, k, None] * columns[j]
        shifted = r + s[..., k, k, None, None] * eye
        columns.append(triangular_solve(shifted, rhs[..., :, None], left_side=True,
                                        lower=False)[..., :, 0])
    y = jnp.stack(columns, axis=-1)
    x = u @ y @ _h(v)
    if c.dtype.kind != "c" and a.dtype.kind != "c" and b.dtype.kind != "c":
        x = jnp.real(x)
    wa = eig(a, compute_right_eigenvectors=False)[0]
    wb = eig(b, compute_right_eigenvectors=False)[0]
    close = jnp.any(jnp.abs(wa[..., :, None] + wb[..., None, :]) < tol, axis=(-2, -1))
    return jnp.where(close[..., None, None], np.nan, x)
