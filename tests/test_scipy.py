"""jax.scipy.special and jax.scipy.stats, run as JAX programs: values against JAX (float64) on
every backend, gradients against JAX's and central differences, and the edges of each support
(-inf outside it, the tails of ndtr/log_ndtr/ndtri)."""
import numpy as np
import pytest

import astjax
import scipy_cases as cases
from test_fft import central_differences

jax = pytest.importorskip("jax")

X = np.random.default_rng(3).uniform(0.05, 0.95, size=8)


def flat(out):
    leaves = jax.tree_util.tree_leaves(out)
    return np.concatenate([np.ravel(np.asarray(v, np.float64)) for v in leaves])


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun", cases.VALUES, ids=lambda f: f.__name__)
def test_values_as_jax(fun, backend):
    with jax.enable_x64(True):
        want = flat(jax.jit(fun)(X))
    got = flat(astjax.jit(fun, backend=backend)(X))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fun", cases.GRADS, ids=lambda f: f.__name__)
def test_gradients_as_jax_and_differences(fun):
    def loss(x):
        return astjax.numpy.sum(fun(x))

    with jax.enable_x64(True):
        want = np.asarray(jax.grad(lambda x: jax.numpy.sum(fun(x)))(X))
    got = astjax.grad(loss)(X)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(got, central_differences(astjax.jit(loss), X), rtol=1e-5,
                               atol=1e-6)


def test_tails_and_supports():
    from astjax.scipy import special, stats
    import scipy.special as sp
    p = np.array([1e-300, 1e-40, 1e-12, 0.02, 0.5, 0.98, 1 - 1e-12])
    np.testing.assert_allclose(special.ndtri(p), sp.ndtri(p), rtol=1e-12)
    assert special.ndtri(np.array([0.0, 1.0, 1.5])).tolist()[:2] == [-np.inf, np.inf]
    assert np.isnan(special.ndtri(np.array([1.5])))[0]
    x = np.array([-38.0, -25.0, -9.0, 0.0, 7.0, 12.0])
    np.testing.assert_allclose(special.log_ndtr(x), sp.log_ndtr(x), rtol=1e-10)  # series, order 3
    assert stats.expon.logpdf(-1.0) == -np.inf and stats.beta.logpdf(1.5, 2.0, 2.0) == -np.inf
    assert stats.poisson.logpmf(2.5, 3.0) == -np.inf and stats.binom.logpmf(11.0, 10.0, 0.5) == -np.inf
    np.testing.assert_allclose(special.zeta(2.0, 1.0), np.pi ** 2 / 6, rtol=1e-14)
    exact = [1, -1 / 2, 1 / 6, 0, -1 / 30, 0, 1 / 42, 0, -1 / 30]  # SciPy's are 1e-12 off
    np.testing.assert_allclose(special.bernoulli(8), exact, rtol=1e-15)
    # JAX's betabinom is 7e-7 off SciPy's at these points (its betaln): SciPy is the oracle
    import scipy.stats as ss
    k = np.arange(10.0)
    np.testing.assert_allclose(stats.betabinom.logpmf(k, 9.0, 2.0, 3.0),
                               ss.betabinom.logpmf(k, 9, 2, 3), rtol=1e-13)
