"""Compiled code is kept per function identity (astjax/identity.py), not per wrapper object:
`grad(f)`, `jit(f)` or `vmap(f)` built again finds what the first one compiled, and
functions that differ in what they read never share an entry."""
import logging

import numpy as np
import pytest

import astjax as jax
import astjax.numpy as jnp
from astjax.identity import identity


def loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


def loss_np(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def central_grad(f, w, eps=1e-6):
    g = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[i] = eps
        g[i] = (f(w + d) - f(w - d)) / (2 * eps)
    return g


@pytest.fixture
def compiles():
    seen = []

    class Record(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("compiling"):
                seen.append(record.getMessage())

    logger = logging.getLogger("astjax")
    handler, level = Record(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield seen
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_grad_rebuilt_in_a_loop_compiles_once(compiles):
    w, x = np.ones((3, 2)) * 0.3, np.arange(12.0).reshape(4, 3) / 10
    for _ in range(6):
        g = jax.grad(loss)(w, x)
        np.testing.assert_allclose(g, central_grad(lambda v: loss_np(v, x), w), rtol=1e-6)
        w = w - 0.1 * np.asarray(g)
    assert len(compiles) == 1, compiles


def test_jit_and_vmap_rebuilt_compile_once(compiles):
    w, x = np.ones((3, 2)) * 0.3, np.arange(12.0).reshape(4, 3) / 10
    for _ in range(4):
        assert np.isclose(jax.jit(loss)(w, x), loss_np(w, x))
        per_row = jax.vmap(loss, in_axes=(None, 0))(w, x[:, None, :])
        np.testing.assert_allclose(per_row, [loss_np(w, r[None]) for r in x])
    assert len(compiles) == 2, compiles


def test_transformations_with_other_parameters_do_not_share(compiles):
    def local_loss(w, x):  # compiled by no other test
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    w, x = np.ones((3, 2)) * 0.3, np.arange(12.0).reshape(4, 3) / 10
    gw, gx = jax.grad(local_loss)(w, x), jax.grad(local_loss, argnums=1)(w, x)
    np.testing.assert_allclose(gw, central_grad(lambda v: loss_np(v, x), w), rtol=1e-6)
    np.testing.assert_allclose(gx, central_grad(lambda v: loss_np(w, v), x), rtol=1e-6)
    assert len(compiles) == 2


def _scaled(scale):
    return lambda x: x * scale


def test_closures_over_other_values_do_not_share():
    x = np.arange(3.0)
    f2, f3 = _scaled(2.0), _scaled(3.0)
    assert identity(f2) != identity(f3)
    np.testing.assert_array_equal(jax.jit(f2)(x), 2 * x)
    np.testing.assert_array_equal(jax.jit(f3)(x), 3 * x)
    np.testing.assert_array_equal(jax.grad(lambda v: jnp.sum(f3(v)))(x), [3.0] * 3)


def test_closures_over_arrays_read_their_own_array():
    x = np.arange(3.0)
    adders = [(lambda v, a=a: v + a) for a in (np.ones(3), np.full(3, 5.0))]
    np.testing.assert_array_equal(jax.jit(adders[0])(x), x + 1)
    np.testing.assert_array_equal(jax.jit(adders[1])(x), x + 5)


def test_a_closure_made_again_in_the_same_frame_shares_and_sees_rebinding(compiles):
    x = np.arange(3.0)
    results = []
    for k in (1.0, 1.0, 4.0):
        f = lambda v: v * k  # noqa: E731  (one cell for k, rebound by the loop)
        results.append(np.asarray(jax.jit(f)(x)))
    np.testing.assert_array_equal(results, [x, x, 4 * x])
    assert len(compiles) == 2, compiles  # the rebinding of k, not the new lambda, recompiles


def test_defaults_are_part_of_the_identity():
    def make(n):
        def f(x, power=n):
            return x ** power
        return f
    x = np.arange(3.0)
    np.testing.assert_array_equal(jax.jit(make(2))(x), x ** 2)
    np.testing.assert_array_equal(jax.jit(make(3))(x), x ** 3)
