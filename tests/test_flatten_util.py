"""jax.flatten_util.ravel_pytree and jax.scipy.integrate against JAX's: the flat vector in the
leaves' common dtype, unravel giving each leaf back its shape and dtype, inside jit and grad."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.flatten_util import ravel_pytree

jax = pytest.importorskip("jax")

PARAMS = {"w": np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3),
          "b": [np.arange(3), np.float64(2.5)]}


def test_ravel_and_unravel_as_jax():
    from jax.flatten_util import ravel_pytree as jax_ravel
    flat, unravel = ravel_pytree(PARAMS)
    with jax.enable_x64(True):
        want, jax_unravel = jax_ravel(PARAMS)
        want_back = jax_unravel(np.asarray(want) * 2)
    assert flat.dtype == want.dtype
    np.testing.assert_array_equal(flat, np.asarray(want))
    back = unravel(flat * 2)
    for got, expected in zip(astjax.tree.leaves(back), jax.tree.leaves(want_back)):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, np.asarray(expected))
    empty, unravel_empty = ravel_pytree({})
    assert empty.shape == (0,) and unravel_empty(empty) == {}
    assert unravel == ravel_pytree(PARAMS)[1]  # (hashable: a static argument may hold it)


def loss(flat, unravel, x):
    params = unravel(flat)
    return jnp.sum(jnp.tanh(x @ params["w"]) * params["b"][1])


def test_unravel_inside_jit_and_grad():
    flat, unravel = ravel_pytree(PARAMS)
    x = np.linspace(0.0, 1.0, 8).reshape(4, 2)
    grad = astjax.jit(astjax.grad(loss), static_argnums=1)(flat, unravel, x)
    w = PARAMS["w"].astype(np.float64)
    dw = x.T @ ((1 - np.tanh(x @ w) ** 2) * 2.5)
    # (leaves in tree_flatten's order: "b" (an integer leaf, then the scale), then "w")
    np.testing.assert_allclose(grad[:3], 0.0)
    np.testing.assert_allclose(grad[3], np.sum(np.tanh(x @ w)), rtol=1e-6)
    np.testing.assert_allclose(grad[4:], dw.ravel(), rtol=1e-6)


def area(y, x):
    return astjax.scipy.integrate.trapezoid(y, x)


def test_scipy_integrate_trapezoid():
    x = np.linspace(0.0, np.pi, 101)
    with jax.enable_x64(True):
        want = float(jax.scipy.integrate.trapezoid(np.sin(x), x))
    assert float(astjax.jit(area)(np.sin(x), x)) == pytest.approx(want, rel=1e-12)
