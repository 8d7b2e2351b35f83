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
    if backend == "numba":
        fun = cases.SLOW_ON_NUMBA.get(fun, fun)
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
    answered = np.isfinite(want)  # (JAX's integrals case is nan at three points: not ours)
    assert answered.sum() >= len(X) // 2
    np.testing.assert_allclose(got[answered], want[answered], rtol=1e-7, atol=1e-9)
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


def _broad_points(seed, n=64):
    rng = np.random.default_rng(seed)
    return np.sign(rng.normal(size=n)) * np.exp(rng.uniform(-9, 5, n))


def test_special_functions_across_their_range_against_scipy():
    """Far from the points the JAX programs use: tiny, huge and negative arguments (JAX's own
    answers are less accurate in places: poisson.entropy to 1e-5, owens_t to 1e-9)."""
    import scipy.special as sp
    import scipy.stats as ss
    from astjax.scipy import special, stats
    x = _broad_points(0)
    positive = np.abs(x)
    for name in ("erfcx", "dawsn", "expi", "i0e", "i1e"):
        np.testing.assert_allclose(getattr(special, name)(x), getattr(sp, name)(x),
                                   rtol=2e-14, err_msg=name)
    for n in (0, 1, 2, 5, 20):
        np.testing.assert_allclose(special.expn(n, positive), sp.expn(n, positive), rtol=1e-14)
    np.testing.assert_allclose(special.spence(positive), sp.spence(positive), rtol=1e-14)
    si, ci = special.sici(x)
    np.testing.assert_allclose(si, sp.sici(x)[0], rtol=1e-14)
    far = np.abs(positive - 3.3842) > 0.01  # Ci's first zero: there its digits are absolute
    np.testing.assert_allclose(ci[far], sp.sici(x)[1][far], rtol=1e-13)
    z = x + 1j * _broad_points(1)
    z = z[np.abs(z) < 25]
    np.testing.assert_allclose(special.wofz(z), sp.wofz(z), rtol=5e-14)
    s, c = special.fresnel(x[positive < 1e4])
    np.testing.assert_allclose(s, sp.fresnel(x[positive < 1e4])[0], rtol=1e-13)
    np.testing.assert_allclose(c, sp.fresnel(x[positive < 1e4])[1], rtol=1e-13)
    h, a = x / 4, _broad_points(2) / 10
    np.testing.assert_allclose(special.owens_t(h, a), sp.owens_t(h, a), rtol=1e-12)
    rng = np.random.default_rng(3)
    p, q, c = rng.uniform(0.1, 5, (3, 40))
    y = rng.uniform(-30, 30, 40)
    np.testing.assert_allclose(special.hyp1f1(p, q, y), sp.hyp1f1(p, q, y), rtol=1e-12)
    y = rng.uniform(-20, 0.95, 40)  # negative x through Pfaff's transformation (JAX: positive)
    np.testing.assert_allclose(special.hyp2f1(p, q, c, y), sp.hyp2f1(p, q, c, y), rtol=1e-12)
    mu = np.array([0.1, 1.0, 5.0, 50.0, 399.0, 401.0, 1000.0])
    np.testing.assert_allclose(stats.poisson.entropy(mu), ss.poisson.entropy(mu), rtol=1e-12)
    assert special.expi(0.0) == -np.inf and special.expn(3, 0.0) == 0.5
    assert np.isnan(special.exp1(-1.0)) and special.spence(0.0) == np.pi ** 2 / 6


def test_exact_factorial_of_concrete_integers_runs_eagerly():
    from astjax.scipy import special
    assert special.factorial(np.array([3, 4, 20]), exact=True).tolist() == [6, 24,
                                                                             2432902008176640000]
