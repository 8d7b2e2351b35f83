"""`jax.scipy.sparse.linalg`: conjugate gradients (`cg`) and BiCGSTAB (`bicgstab`) for Ax = b,
with A a matrix or a function computing A @ x (any pytree of arrays for x and b), as JAX has
them: the same iterations, stopping tests and defaults (tol 1e-5, at most 10 * size steps), so
the numbers match JAX's and SciPy's. Each is one while loop; its derivatives go through the
iterations (JAX solves the adjoint system instead: the two agree once the solve converges).
`info` is None, as in JAX."""
import functools
import operator

import numpy as np

import astjax.numpy as jnp
from astjax import lax
from astjax.tree_util import tree_leaves, tree_map, tree_structure

_dot = functools.partial(jnp.dot, precision=lax.Precision.HIGHEST)
_vdot_leaves = functools.partial(jnp.vdot, precision=lax.Precision.HIGHEST)


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients: A hermitian positive definite; M an approximate inverse of A."""
    return _isolve(_cg_solve, A, b, x0, tol, atol, maxiter, M)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """The biconjugate gradient stabilised method, for any invertible A."""
    return _isolve(_bicgstab_solve, A, b, x0, tol, atol, maxiter, M)


def _isolve(solve, A, b, x0, tol, atol, maxiter, M):
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = tree_map(jnp.asarray, b), tree_map(jnp.asarray, x0)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} "
                         f"vs {tree_structure(b)}")
    if [np.shape(x) for x in tree_leaves(x0)] != [np.shape(x) for x in tree_leaves(b)]:
        raise ValueError("arrays in x0 and b must have matching shapes")
    if maxiter is None:
        maxiter = 10 * sum(int(np.size(x)) for x in tree_leaves(b))  # (SciPy's default)
    preconditioned = M is not None
    A, M = _matvec(A), (_matvec(M) if preconditioned else (lambda x: x))
    x = solve(A, b, x0, maxiter=maxiter, tol=tol, atol=atol, M=M, preconditioned=preconditioned)
    return x, None


def _matvec(A):
    """A as the function x -> A @ x."""
    if callable(A):
        return A
    if hasattr(A, "shape") and (len(A.shape) != 2 or A.shape[0] != A.shape[1]):
        raise ValueError(f"linear operator must be a square matrix, but has shape: {A.shape}")
    if isinstance(A, np.ndarray) or hasattr(A, "dtype"):
        return functools.partial(_dot, A)
    if hasattr(A, "__matmul__"):
        return functools.partial(operator.matmul, A)
    raise TypeError(f"linear operator must be either a function or ndarray: {A}")


def _vdot_real(x, y):
    """The real part of <x, y> over every leaf."""
    def part(a, b):
        out = _vdot_leaves(jnp.real(a), jnp.real(b))
        if jnp.iscomplexobj(a) or jnp.iscomplexobj(b):
            out = out + _vdot_leaves(jnp.imag(a), jnp.imag(b))
        return out
    return sum(tree_leaves(tree_map(part, x, y)))


def _vdot(x, y):
    return sum(tree_leaves(tree_map(_vdot_leaves, x, y)))


def _scaled(scalar, tree):
    return tree_map(lambda t: scalar * t, tree)


def _add(x, y):
    return tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_map(operator.sub, x, y)


def _tolerance2(b, tol, atol):
    """The squared residual norm the iteration stops at: max(tol |b|, atol) squared."""
    return jnp.maximum(jnp.square(tol) * _vdot_real(b, b), jnp.square(atol))


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M, preconditioned):
    atol2 = _tolerance2(b, tol, atol)
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = jnp.result_type(*tree_leaves(p0))
    gamma0 = _vdot_real(r0, z0).astype(dtype)

    def cond_fun(value):
        _, r, gamma, _, k = value
        rs = _vdot_real(r, r) if preconditioned else jnp.real(gamma)
        return (rs > atol2) & (k < maxiter)

    def body_fun(value):
        x, r, gamma, p, k = value
        Ap = A(p)
        alpha = gamma / _vdot_real(p, Ap).astype(dtype)
        x_ = _add(x, _scaled(alpha, p))
        r_ = _sub(r, _scaled(alpha, Ap))
        z_ = M(r_)
        gamma_ = _vdot_real(r_, z_).astype(dtype)
        p_ = _add(z_, _scaled(gamma_ / gamma, p))
        return x_, r_, gamma_, p_, k + 1

    return lax.while_loop(cond_fun, body_fun, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M, preconditioned):
    atol2 = _tolerance2(b, tol, atol)
    r0 = _sub(b, A(x0))
    one = jnp.asarray(1, jnp.result_type(*tree_leaves(b)))

    def cond_fun(value):
        _, r, *_, k = value
        return (_vdot_real(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body_fun(value):
        x, r, rhat, alpha, omega, rho, p, q, k = value
        rho_ = _vdot(rhat, r)
        beta = rho_ / rho * alpha / omega
        p_ = _add(r, _scaled(beta, _sub(p, _scaled(omega, q))))
        phat = M(p_)
        q_ = A(phat)
        alpha_ = rho_ / _vdot(rhat, q_)
        s = _sub(r, _scaled(alpha_, q_))
        exit_early = _vdot_real(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega_ = _vdot(t, s) / _vdot(t, t)
        x_ = tree_map(functools.partial(jnp.where, exit_early), _add(x, _scaled(alpha_, phat)),
                      _add(x, _add(_scaled(alpha_, phat), _scaled(omega_, shat))))
        r_ = tree_map(functools.partial(jnp.where, exit_early), s, _sub(s, _scaled(omega_, t)))
        k_ = jnp.where((omega_ == 0) | (alpha_ == 0), -11, k + 1)  # (a breakdown: stop)
        k_ = jnp.where(rho_ == 0, -10, k_)
        return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_

    start = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lax.while_loop(cond_fun, body_fun, start)[0]
