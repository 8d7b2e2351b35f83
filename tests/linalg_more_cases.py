"""The rest of jax.scipy.linalg and the non-symmetric decompositions, as JAX programs
(tests/test_linalg_more.py runs them on astjax and on JAX). Results that depend on an
eigenvector's phase or the order LAPACK returns eigenvalues in are made invariant first."""
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jax import lax


def eigen_invariants(a):
    w, v = jnp.linalg.eig(a)
    vals = jnp.linalg.eigvals(a)
    return (jnp.sum(w), jnp.sum(w * w), jnp.prod(vals), jnp.sort(jnp.abs(vals)),
            jnp.sum(jnp.abs(v) ** 4), jnp.abs(a @ v - v * w).max())


def left_eigenvectors(a):
    w, vl, vr = lax.linalg.eig(a, compute_left_eigenvectors=True)
    residual = jnp.conj(vl).T @ a - w[:, None] * jnp.conj(vl).T
    return jnp.abs(residual).max(), jnp.sum(jnp.abs(vl) ** 4), jnp.sum(jnp.abs(vr) ** 4)


def schur_invariants(a):
    t, z = jsl.schur(a)
    tc, zc = jsl.schur(a, output="complex")
    c, zz = jsl.rsf2csf(t, z)
    return (jnp.sum(t * t), jnp.sort(jnp.real(jnp.diag(tc))), jnp.abs(z @ t @ z.T - a).max(),
            jnp.abs(zz @ c @ jnp.conj(zz).T - a).max(), jnp.abs(jnp.tril(c, -1)).max(),
            jnp.sort(jnp.abs(jnp.diag(c))))


def real_schur(a):
    t, z = jsl.schur(a)
    return jnp.sum(t * t), jnp.abs(z @ t @ z.T - a).max(), jnp.abs(jnp.tril(t, -2)).max()


def exponentials(a, spd):
    value, derivative = jsl.expm_frechet(a, spd)
    return jsl.expm(a), jsl.expm(20.0 * a), value, derivative


def polar_and_hessenberg(a, spd):
    u, p = jsl.polar(a)
    u2, p2 = jsl.polar(a[:3], side="left")
    return u, p, u2, p2, jsl.hessenberg(a), jsl.hessenberg(spd, calc_q=True)[1]


def schur_functions(a, spd):
    return jsl.sqrtm(spd), jsl.sqrtm(a), jsl.funm(a, jnp.sin)


def sylvester_and_qr(a, b):
    x = jsl.solve_sylvester(a, a.T @ a + 1.0, b @ b.T)
    cq, r = jsl.qr_multiply(a[:, :3], b.T)
    qc, r2 = jsl.qr_multiply(a[:, :3], b[:3], mode="left")
    return x, cq, r, qc, r2


def special_matrices(c, r):
    return (jsl.toeplitz(c, r), jsl.toeplitz(c), jsl.toeplitz(jnp.stack([c, 2.0 * c])),
            jsl.hankel(c, r), jsl.hankel(c), jsl.circulant(c), jsl.leslie(r, c),
            jsl.companion(r), jsl.fiedler(c), jsl.fiedler_companion(r),
            jsl.convolution_matrix(c, 5), jsl.convolution_matrix(c, 5, "same"),
            jsl.convolution_matrix(c, 2, "valid"), jsl.hilbert(4), jsl.invhilbert(4),
            jsl.helmert(5), jsl.helmert(4, full=True), jsl.hadamard(8), jsl.dft(4),
            jsl.dft(3, scale="sqrtn"))


def polynomials(p):
    companion_roots = jnp.sort(jnp.abs(jnp.linalg.eigvals(jsl.companion(p))))
    return (jnp.sort_complex(jnp.roots(p, strip_zeros=False)), companion_roots,
            jnp.poly(jnp.outer(p[:3], p[1:4]) + jnp.eye(3)))


def loss_eigvals(a):
    w = jnp.linalg.eigvals(a)
    return jnp.sum(jnp.real(w) ** 2 + 3.0 * jnp.imag(w) ** 2 + jnp.abs(w))


def loss_expm(a):
    return jnp.sum(jsl.expm(a) ** 2) + jnp.sum(jsl.expm(4.0 * a))


def loss_polar(a):
    u, p = jsl.polar(a)
    return jnp.sum(u * a) + jnp.sum(p ** 2)


def loss_special_matrices(c):
    return (jnp.sum(jsl.toeplitz(c) ** 2) + jnp.sum(jsl.circulant(c) * jsl.hankel(c))
            + jnp.sum(jsl.fiedler(c)) + jnp.sum(jsl.companion(c + 2.0)))
