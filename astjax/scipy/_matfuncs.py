"""Matrix functions of scipy.linalg on the decomposition primitives: the exponential (Higham's
scaling and squaring with a Pade approximant) and its Frechet derivative, the polar
decomposition (from the SVD), the Hessenberg form (Householder reflections) and qr_multiply.
Each works on the trailing two axes and differentiates through its equations."""
import numpy as np

import astjax.numpy as jnp

from ..control import while_loop
from ..core.prims.elementwise import part_dtype
from ..numpy._decompositions import float_matrix, mT, qr as _qr, svd as _svd
from ..numpy.linalg import solve

# Higham (2005): the Pade degree and the 1-norm up to which it is exact in each precision
_PADE = {np.dtype(np.float64): (13, 5.371920351148152),
         np.dtype(np.float32): (7, 3.925724783138660)}
_PADE_COEFFICIENTS = {
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0, 1.0],
}


def _pade(a, degree):
    """(U, V): the odd and even parts of the [degree/degree] Pade approximant's numerator."""
    b = _PADE_COEFFICIENTS[degree]
    eye = jnp.broadcast_to(jnp.eye(int(a.shape[-1]), dtype=a.dtype), a.shape)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    if degree == 7:
        u = a @ (b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
        return u, b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    return u, v


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """exp(A): A scaled by 2^-s into the Pade approximant's exact range, then squared s times
    (s at most max_squarings; beyond it the result is nan, as JAX)."""
    a = float_matrix(A, "expm")
    degree, theta = _PADE[part_dtype(a.dtype)]
    norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2), axis=-1)  # the 1-norm of each matrix
    s = jnp.maximum(0.0, jnp.ceil(jnp.log2(jnp.maximum(norm, 1e-300) / theta)))
    s = jnp.where(jnp.isfinite(s), s, max_squarings + 1.0)
    scaled = a / (2.0 ** jnp.minimum(s, max_squarings))[..., None, None].astype(a.dtype)
    u, v = _pade(scaled, degree)
    r = solve(v - u, v + u)
    steps = s.astype(np.int32)

    def more(state):
        return state[0] < jnp.minimum(jnp.max(steps), max_squarings)

    def square(state):
        k, r = state
        return k + 1, jnp.where((k < steps)[..., None, None], r @ r, r)

    _, r = while_loop(more, square, (np.int32(0), r))
    return jnp.where((s > max_squarings)[..., None, None], np.nan, r)


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """(expm(A), L(A, E)), the Frechet derivative of expm at A in direction E: the upper right
    block of expm([[A, E], [0, A]])."""
    if method not in (None, "SPS", "blockEnlarge"):
        raise ValueError("expm_frechet: method must be None, 'SPS' or 'blockEnlarge'")
    a, e = float_matrix(A, "expm_frechet"), float_matrix(E, "expm_frechet")
    if a.shape != e.shape or a.shape[-1] != a.shape[-2]:
        raise ValueError("expm_frechet: A and E must be square matrices of the same shape")
    n = int(a.shape[-1])
    dtype = jnp.result_type(a, e)
    top = jnp.concatenate([a, e], axis=-1).astype(dtype)
    bottom = jnp.concatenate([jnp.zeros_like(a), a], axis=-1).astype(dtype)
    big = expm(jnp.concatenate([top, bottom], axis=-2))
    value, derivative = big[..., :n, :n], big[..., :n, n:]
    return (value, derivative) if compute_expm else derivative


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side 'right', p positive semidefinite n x n) or a = p u ('left'),
    u with orthonormal columns, from the SVD a = W S V^H."""
    if side not in ("right", "left"):
        raise ValueError("polar: side must be 'right' or 'left'")
    if method not in ("qdwh", "svd"):
        raise ValueError("polar: method must be 'qdwh' or 'svd'")
    a = float_matrix(a, "polar")
    w, s, vh = _svd(a, full_matrices=False)
    u = w @ vh
    s = s.astype(a.dtype)
    if side == "right":
        p = (jnp.conj(mT(vh)) * s[..., None, :]) @ vh
    else:
        p = (w * s[..., None, :]) @ jnp.conj(mT(w))
    return u, p


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The upper Hessenberg form H = Q^T a Q by Householder reflections (LAPACK's gehrd
    convention: H[k+1, k] = -sign(x0) |x|, no reflection where the column is already reduced);
    real matrices."""
    h = float_matrix(a, "hessenberg")
    if h.dtype.kind == "c":
        raise NotImplementedError("hessenberg of a complex matrix is not supported yet")
    n = int(h.shape[-1])
    q = jnp.broadcast_to(jnp.eye(n, dtype=h.dtype), h.shape)
    rows = np.arange(n)
    for k in range(n - 2):
        x = jnp.where(rows > k, h[..., :, k], 0.0)  # the column below the subdiagonal entry
        alpha = h[..., k + 1, k]
        tail = jnp.sqrt(jnp.sum(jnp.where(rows > k + 1, x, 0.0) ** 2, axis=-1))
        beta = -jnp.where(alpha >= 0, 1.0, -1.0) * jnp.sqrt(alpha * alpha + tail * tail)
        reflect = tail > 0
        v = jnp.where(rows == k + 1, (alpha - beta)[..., None], x)
        v = v / jnp.where(reflect, jnp.sqrt(jnp.sum(v * v, axis=-1)), 1.0)[..., None]
        v = jnp.where(reflect[..., None], v, 0.0)
        h = h - 2 * v[..., :, None] * (v[..., None, :] @ h)  # (I - 2 v v^T) h (I - 2 v v^T)
        h = h - 2 * (h @ v[..., :, None]) * v[..., None, :]
        q = q - 2 * (q @ v[..., :, None]) * v[..., None, :]
        h = jnp.where((rows[:, None] > k + 1) & (rows[None, :] == k), 0.0, h)
    return (h, q) if calc_q else h


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """(c @ Q, R) for mode 'right', (Q @ c, R) for 'left', with a = Q R economic."""
    if mode not in ("right", "left"):
        raise ValueError("qr_multiply: mode must be 'right' or 'left'")
    if pivoting:
        raise NotImplementedError("qr_multiply(pivoting=True): pivoted QR is not supported yet")
    q, r = _qr(float_matrix(a, "qr_multiply"), full_matrices=False)
    if conjugate:
        q = jnp.conj(q)
    c = jnp.asarray(c)
    if mode == "right":
        product = c @ q
    else:
        product = q @ c
    return product, r

