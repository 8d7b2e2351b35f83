"""Matrix products: matmul, einsum, dot/outer/trace, norms, a static power iteration."""
import numpy as np

import astjax.numpy as jnp

from .registry import Case, array, composite, side


def affine(w, x, b):
    return w @ x + b


def gram(x):
    return x.T @ x / x.shape[0]


def bilinear(x, a, y):
    return jnp.einsum("i,ij,j->", x, a, y)


def batched_matmul(a, b):
    return jnp.einsum("bij,bjk->bik", a, b) + jnp.matmul(a, b) * 0.5


def np_outer_trace(x, y):
    return np.trace(np.outer(x, y)) + np.dot(x, y) * np.sum(np.outer(y, x), axis=0)


def project(x, v):
    return x - v * (jnp.dot(x, v) / (jnp.dot(v, v) + 1.0))


def power_iteration(m):
    a = m @ m.T + jnp.eye(m.shape[0], dtype=m.dtype)
    v = jnp.ones(m.shape[0], dtype=m.dtype)
    for _ in range(6):
        v = a @ v
        v = v / jnp.linalg.norm(v)
    return v @ a @ v, v


def row_norms(x):
    return jnp.linalg.norm(x, axis=-1), jnp.sqrt(jnp.sum(x * x, axis=-1) + 1.0)


def quadratic_form(x, a):
    sym = 0.5 * (a + a.T)
    return jnp.einsum("...i,ij,...j->...", x, sym, x) + jnp.trace(sym) + jnp.sum(jnp.diag(a))


@composite
def _affine_args(draw, dtype):
    m, n = draw(side()), draw(side())
    return draw(array(dtype, (m, n))), draw(array(dtype, (n,))), draw(array(dtype, (m,)))


@composite
def _bilinear_args(draw, dtype):
    m, n = draw(side()), draw(side())
    return draw(array(dtype, (m,))), draw(array(dtype, (m, n))), draw(array(dtype, (n,)))


@composite
def _batched_args(draw, dtype):
    b, i, j, k = (draw(side(1, 3)) for _ in range(4))
    return draw(array(dtype, (b, i, j))), draw(array(dtype, (b, j, k)))


@composite
def _vectors(draw, dtype):
    n = draw(side())
    return draw(array(dtype, (n,))), draw(array(dtype, (n,)))


@composite
def _quadratic_args(draw, dtype):
    n, m = draw(side()), draw(side(1, 3))
    return draw(array(dtype, (m, n))), draw(array(dtype, (n, n)))


@composite
def _matrix(draw, dtype):
    return (draw(array(dtype, (draw(side()), draw(side())))),)


CASES = [
    Case("affine", affine, _affine_args, jax=True, tags=("linalg", "matmul")),
    Case("gram", gram, _matrix, jax=True, tags=("linalg", "matmul")),
    Case("bilinear", bilinear, _bilinear_args, jax=True, tags=("linalg", "einsum")),
    Case("batched_matmul", batched_matmul, _batched_args, jax=True, tags=("linalg", "einsum")),
    Case("np_outer_trace", np_outer_trace, _vectors, tags=("linalg", "numpy")),
    Case("project", project, _vectors, jax=True, tags=("linalg",)),
    Case("power_iteration", power_iteration, _matrix, jax=True,
         tags=("linalg", "static-for", "tuple-out")),
    Case("row_norms", row_norms, _matrix, differentiable=False, jax=True, tags=("linalg",)),
    Case("quadratic_form", quadratic_form, _quadratic_args, jax=True, tags=("linalg", "einsum")),
]
