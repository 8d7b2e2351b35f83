"""jax.scipy.sparse.linalg's cg and bicgstab, against JAX's (the same iterations: equal to
rounding) and NumPy's solve: a matrix or a function for A, preconditioners, pytrees, compiled,
and differentiated through the solve."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.scipy.sparse.linalg import bicgstab, cg

jax = pytest.importorskip("jax")
jsl = pytest.importorskip("jax.scipy.sparse.linalg")

RNG = np.random.default_rng(0)
Q = RNG.standard_normal((6, 6))
SPD = Q @ Q.T + 6 * np.eye(6)             # cg's: symmetric positive definite
GENERAL = RNG.standard_normal((6, 6)) + 6 * np.eye(6)
B = RNG.standard_normal(6)
SOLVERS = {"cg": (cg, SPD), "bicgstab": (bicgstab, GENERAL)}


@pytest.mark.parametrize("name", SOLVERS)
def test_matrix_and_function_operators_as_jax(name):
    solve, a = SOLVERS[name]
    with jax.enable_x64(True):
        want = getattr(jsl, name)(a, B)[0]
        preconditioned = getattr(jsl, name)(a, B, M=np.diag(1 / np.diag(a)))[0]
    x, info = solve(a, B)
    assert info is None
    np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(astjax.jit(lambda m, v: solve(m, v)[0])(a, B), want, rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(solve(a, B, M=np.diag(1 / np.diag(a)))[0], preconditioned,
                               rtol=1e-12, atol=1e-14)
    by_function = solve(lambda v: jnp.dot(a, v), B, tol=1e-12)[0]
    np.testing.assert_allclose(by_function, np.linalg.solve(a, B), rtol=1e-9)


def _split_operator(t):
    y = SPD @ jnp.concatenate([t["u"], t["v"]])
    return {"u": y[:2], "v": y[2:]}


def test_pytree_vectors_and_the_gradient_through_the_solve():
    x = cg(_split_operator, {"u": B[:2], "v": B[2:]}, tol=1e-12)[0]
    np.testing.assert_allclose(np.concatenate([x["u"], x["v"]]), np.linalg.solve(SPD, B),
                               rtol=1e-9)
    grad = astjax.grad(lambda v: jnp.sum(cg(SPD, v, tol=1e-12)[0] ** 2))(B)
    inverse = np.linalg.inv(SPD)
    np.testing.assert_allclose(grad, 2 * inverse.T @ (inverse @ B), rtol=1e-8)  # d|A^-1 b|^2


def test_mismatched_guesses_are_refused():
    with pytest.raises(ValueError, match="matching"):
        cg(SPD, B, x0=np.zeros(5))
    with pytest.raises(ValueError, match="square"):
        cg(np.ones((3, 4)), np.ones(3))


def test_astjax_and_jax_arrays_meet_in_jax_arithmetic():
    """JAX reads an argument's `sharding`: an astjax array's is JAX's own where JAX is imported
    (astjax's made `jax_array - astjax_array` fail inside JAX)."""
    a, j = jnp.arange(3.0), jax.numpy.arange(3.0)
    np.testing.assert_array_equal(j - a, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(jax.jit(lambda x, y: x * y)(a, j), [0.0, 1.0, 4.0])
