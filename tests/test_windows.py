"""reduce_window (pooling), associative_scan, cumlogsumexp, top_k, multi-operand sort and
lax.map against JAX (the oracle) on every backend; pooling's gradient against central
differences and its batching against a loop."""
import numpy as np
import pytest

import astjax
import window_cases as cases
from astjax import lax

jax = pytest.importorskip("jax")
BACKENDS = ["numpy", "numba", "xla"]


def jax_of(name, *args):
    jlax, jjnp = jax.lax, jax.numpy
    fns = {
        "max_pool": lambda x: jlax.reduce_window(x, -jjnp.inf, jlax.max, (1, 2, 2, 1),
                                                 (1, 2, 2, 1), "VALID"),
        "avg_pool_same": lambda x: jlax.reduce_window(x, 0.0, jlax.add, (1, 3, 3, 1),
                                                      (1, 2, 2, 1), "SAME") / 9.0,
        "dilated_min": lambda x: jlax.reduce_window(x, jjnp.inf, jlax.min, (2, 3), (1, 2),
                                                    ((1, 0), (2, 1)), base_dilation=(1, 2),
                                                    window_dilation=(2, 1)),
        "prefix_products": lambda x: jlax.associative_scan(lambda a, b: a * b, x, axis=1),
        "reversed_prefix_max": lambda x: jlax.associative_scan(jjnp.maximum, x, reverse=True),
        "top3": lambda x: jlax.top_k(x, 3),
    }
    with jax.enable_x64(True):
        out = fns[name](*args)
        return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else (out,))]


INPUTS = {
    "max_pool": (2, 6, 7, 3), "avg_pool_same": (2, 7, 5, 2), "dilated_min": (5, 6),
    "prefix_products": (3, 7), "reversed_prefix_max": (9, 2), "top3": (4, 8),
}


@pytest.mark.parametrize("backend", [None] + BACKENDS)
@pytest.mark.parametrize("name", sorted(INPUTS))
def test_matches_jax(name, backend):
    x = np.random.default_rng(0).normal(size=INPUTS[name])
    fun = getattr(cases, name)
    got = fun(x) if backend is None else astjax.jit(fun, backend=backend)(x)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, jax_of(name, x)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)


def test_pooling_gradient_matches_finite_differences():
    x = np.random.default_rng(1).normal(size=(1, 4, 6, 2))
    grad = astjax.jit(astjax.grad(cases.pooled_loss))(x)
    eps, want = 1e-6, np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        want[index] = (float(cases.pooled_loss(x + step)) -
                       float(cases.pooled_loss(x - step))) / (2 * eps)
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-8)


def test_pooling_batches_like_a_loop():
    xs = np.random.default_rng(2).normal(size=(3, 2, 6, 7, 3))
    got = astjax.jit(astjax.vmap(cases.max_pool))(xs)
    for k in range(3):
        np.testing.assert_allclose(np.asarray(got)[k], jax_of("max_pool", xs[k])[0])


def test_sort_of_several_operands_and_cumlogsumexp_match_jax():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    second = rng.integers(0, 3, size=(2, 9)).astype(np.float64)
    values = rng.normal(size=(2, 9))
    got = lax.sort((keys, second, values), dimension=1, num_keys=2)
    with jax.enable_x64(True):
        want = jax.lax.sort((keys, second, values), dimension=1, num_keys=2)
        want_c = np.asarray(jax.lax.cumlogsumexp(values, axis=1, reverse=True))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
    np.testing.assert_allclose(lax.cumlogsumexp(values, axis=1, reverse=True), want_c,
                               rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_lax_map(backend):
    x = np.random.default_rng(4).normal(size=(5, 3))
    got = astjax.jit(cases.rows_squared, backend=backend)(x)
    np.testing.assert_allclose(got, (x ** 2).sum(1), rtol=1e-12)
