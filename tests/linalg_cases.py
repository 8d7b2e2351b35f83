"""Linear-algebra programs written against JAX's API (tests/test_linalg.py runs them on astjax
and, as the oracle, on JAX). Results are chosen to be independent of eigen/singular vector
signs, which LAPACK builds may choose differently."""
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jax import lax


def det(a):
    return jnp.linalg.det(a)


def slogdet(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return sign, logdet


def inv(a):
    return jnp.linalg.inv(a)


def solve_matrix(a, b):
    return jnp.linalg.solve(a, b)


def solve_vector(a, b):
    return jnp.linalg.solve(a, b[:, 0])


def cholesky(s):
    return jnp.linalg.cholesky(s), jsl.cholesky(s), jsl.cholesky(s, lower=True)


def cho_solve(s, b):
    return jsl.cho_solve(jsl.cho_factor(s), b), jsl.cho_solve(jsl.cho_factor(s, lower=True), b)


def lu_parts(a):
    p, lower, upper = jsl.lu(a)
    lu, piv = jsl.lu_factor(a)
    return p, lower, upper, lu, piv


def lu_solve(a, b):
    factors = jsl.lu_factor(a)
    return jsl.lu_solve(factors, b), jsl.lu_solve(factors, b, trans=1)


def triangular(a, b):
    return (jsl.solve_triangular(a, b, lower=True), jsl.solve_triangular(a, b, trans=1),
            lax.linalg.triangular_solve(a, b, left_side=True, lower=False, unit_diagonal=True),
            lax.linalg.triangular_solve(a, b.T, left_side=False, lower=True, transpose_a=True))


def qr_reduced(a):
    q, r = jnp.linalg.qr(a)
    return q, r


def qr_complete(a):
    q, r = jnp.linalg.qr(a, mode="complete")
    return q @ r, jnp.abs(q)


def eigh(s):
    w, v = jnp.linalg.eigh(s)
    return w, (v * w) @ v.T, jnp.abs(v), jnp.linalg.eigvalsh(s)


def svd(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return s, (u * s) @ vh, jnp.abs(u), jnp.abs(vh), jnp.linalg.svd(a, compute_uv=False)


def svd_full(a):
    u, s, vh = jnp.linalg.svd(a)
    return jnp.abs(u), jnp.abs(vh), u @ u.T


def derived(a, s):
    return (jnp.linalg.pinv(a), jnp.linalg.matrix_rank(a), jnp.linalg.matrix_power(s, 3),
            jnp.linalg.matrix_power(s, -2), jnp.linalg.norm(a, 2), jnp.linalg.norm(a, "nuc"),
            jnp.linalg.norm(a, -2), jnp.linalg.cond(s), jnp.linalg.multi_dot([a, a.T, a]))


def least_squares(a, b):
    x, resid, rank, sv = jnp.linalg.lstsq(a, b)
    return x, resid, rank, sv


def batched(stack):
    return jnp.linalg.det(stack), jnp.linalg.inv(stack), jnp.linalg.slogdet(stack)[1]


# ---------------------------------------------------------------- scalar losses (grad)
def loss_det(a):
    return jnp.linalg.det(a) ** 2 + jnp.linalg.slogdet(a)[1]


def loss_solve(a, b):
    return jnp.sum(jnp.linalg.solve(a, b) * b) + jnp.sum(jnp.linalg.inv(a) ** 2)


def loss_cholesky(s, b):
    low = jnp.linalg.cholesky(s)
    return jnp.sum(low * jnp.tril(jnp.ones_like(s)) * 1.5) + jnp.sum(jsl.cho_solve((low, True), b))


def loss_triangular(a, b):
    return jnp.sum(jsl.solve_triangular(a, b, lower=True) ** 2) + \
        jnp.sum(jsl.solve_triangular(a, b, trans=1) * b)


def loss_qr(a):
    q, r = jnp.linalg.qr(a)
    return jnp.sum(q * jnp.arange(q.size).reshape(q.shape)) + jnp.sum(r ** 2)


def loss_eigh(s):
    w, v = jnp.linalg.eigh(s)
    return jnp.sum(w * jnp.arange(w.size)) + jnp.sum(v ** 4)


def loss_svd(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(s ** 3) + jnp.sum(u ** 4) + jnp.sum(vh ** 4)


def loss_norms(a):
    return jnp.linalg.norm(a, 2) + jnp.linalg.norm(a, "nuc") + jnp.sum(jnp.linalg.pinv(a))
