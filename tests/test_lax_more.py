"""The rest of jax.lax, run as JAX programs: values on every backend against JAX itself (float64
enabled), gradients of the gather/scatter compositions against JAX's, and lax's shape
helpers against JAX's answers."""
import numpy as np
import pytest

import astjax
import lax_more_cases as cases

jax = pytest.importorskip("jax")

X = np.random.default_rng(11).uniform(-2, 2, size=12)


def _leaves(out):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(out)]


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun", cases.CASES, ids=lambda f: f.__name__)
def test_values_as_jax(fun, backend):
    if backend == "numba" and fun is cases.special_functions:
        fun = cases.one_of_each_iteration  # (all ten take Numba over a minute to compile)
    with jax.enable_x64(True):
        want = _leaves(jax.jit(fun)(X))
    got = _leaves(astjax.jit(fun, backend=backend)(X))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, (i, g.shape, w.shape)
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0, err_msg=f"output {i}")


@pytest.mark.parametrize("fun", [cases.gathers, cases.scatters, cases.patches_and_local],
                         ids=lambda f: f.__name__)
def test_gradients_as_jax(fun):
    def loss(x):
        return sum(jax.numpy.sum(jax.numpy.sin(v)) for v in fun(x))

    with jax.enable_x64(True):
        want = np.asarray(jax.grad(loss)(X))
    np.testing.assert_allclose(astjax.grad(loss)(X), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,args", cases.shape_helpers(), ids=lambda v: str(v)[:30])
def test_shape_helpers_as_jax(name, args):
    assert tuple(getattr(astjax.lax, name)(*args)) == tuple(getattr(jax.lax, name)(*args))


def special_gradients(x):
    a = jax.numpy.abs(x) * 3 + 0.2
    z = jax.numpy.abs(x[::-1]) * 4
    return (jax.lax.igamma(a, z) + jax.lax.igammac(a * 0.5, z)
            + jax.lax.bessel_i0e(4 * x) + jax.lax.bessel_i1e(5 * x)
            + jax.lax.betainc(1.5, 2.5, jax.numpy.abs(jax.numpy.sin(x)) * 0.9 + 0.05))


def test_special_function_gradients_as_jax():
    def loss(x):
        return jax.numpy.sum(special_gradients(x))

    with jax.enable_x64(True):
        want = np.asarray(jax.grad(loss)(X))
    got = astjax.grad(loss)(X)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_special_functions_against_scipy_edges():
    """SciPy is the oracle: both regimes of P/Q, tiny and huge arguments, and betainc's
    derivatives in a and b (which JAX does not define) against central differences."""
    import scipy.special as sp
    from astjax import lax
    a = np.array([1e-3, 0.5, 1.0, 2.5, 10.0, 80.0, 300.0, 0.1])
    x = np.array([1e-5, 0.2, 1.0, 2.5, 12.0, 60.0, 310.0, 25.0])
    np.testing.assert_allclose(lax.igamma(a, x), sp.gammainc(a, x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(lax.igammac(a, x), sp.gammaincc(a, x), rtol=1e-11, atol=1e-300)
    b, y = a[::-1] + 0.5, np.linspace(0.01, 0.99, 8)
    np.testing.assert_allclose(lax.betainc(a + 0.5, b, y), sp.betainc(a + 0.5, b, y),
                               rtol=1e-11)
    assert np.isnan(lax.igamma(-1.0, 2.0)) and np.isnan(lax.betainc(1.0, 2.0, 1.5))
    assert lax.igamma(2.0, np.inf) == 1.0 and lax.igammac(2.0, np.inf) == 0.0

    def f(p, q):
        return jax.numpy.sum(astjax.lax.betainc(p, q, y))

    da, db = astjax.grad(f, argnums=(0, 1))(2.0, 3.0)
    h = 1e-6
    np.testing.assert_allclose(da, (sp.betainc(2 + h, 3, y) - sp.betainc(2 - h, 3, y)).sum()
                               / (2 * h), rtol=1e-6)
    np.testing.assert_allclose(db, (sp.betainc(2, 3 + h, y) - sp.betainc(2, 3 - h, y)).sum()
                               / (2 * h), rtol=1e-6)
