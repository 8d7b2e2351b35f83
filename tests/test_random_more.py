"""The rest of jax.random (astjax/random/_more.py) against JAX 0.10.2: the samplers that transform
uniform, normal or exponential draws agree with JAX to float rounding on the same key;
binomial and multinomial run JAX's loops on the same uniforms and give JAX's counts; the
samplers built on gamma draws are checked in distribution (Kolmogorov-Smirnov against SciPy and
against JAX's own draws, and moments). Also: JAX's shapes and dtypes, typed keys, jit on every
backend, vmap over keys, and gradients in the parameters."""
import numpy as np
import pytest
from scipy import special, stats

import astjax
from astjax import random

jax = pytest.importorskip("jax")
jrandom = jax.random

f32 = np.float32
N = 20000


def keys(seed):
    return random.PRNGKey(seed), jrandom.PRNGKey(seed)


SAME_BITS = [  # (name, arguments after the key), all float32
    ("lognormal", (f32(0.7), (500,))),
    ("lognormal", (np.array([0.5, 2.0], f32), (300, 2))),
    ("pareto", (np.array([1.5, 3.0], f32), (300, 2))),
    ("rayleigh", (np.array([[0.5], [2.0]], f32), (2, 300))),
    ("wald", (np.array([0.5, 1.0, 4.0], f32), (200, 3))),
    ("weibull_min", (np.array([1.5, 3.0], f32), f32(0.8), (300, 2))),
    ("triangular", (f32(-1), np.array([-1.0, 0.0, 2.0], f32), f32(2), (200, 3))),
    ("maxwell", ((500,),)),
]


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("name, args", SAME_BITS)
def test_transformed_draws_agree_with_jax(seed, name, args):
    key, jkey = keys(seed)
    got = getattr(random, name)(key, *args, dtype=f32)
    want = np.asarray(getattr(jrandom, name)(jkey, *args, dtype=f32))
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("seed", [0, 7])
def test_geometric_complex_lognormal_and_double_sided_maxwell_agree_with_jax(seed):
    key, jkey = keys(seed)
    p = np.array([0.05, 0.5, 0.9], f32)
    got = random.geometric(key, p, (300, 3), np.int32)
    want = np.asarray(jrandom.geometric(jkey, p, (300, 3), np.int32))
    assert got.dtype == np.int32 and got.min() >= 1
    assert np.mean(got == want) > 0.995  # (a float quotient may round across an integer)
    got = random.lognormal(key, f32(0.5), (50,), np.complex64)
    want = np.asarray(jrandom.lognormal(jkey, f32(0.5), (50,), np.complex64))
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    # rademacher's signs come from a Python 0.5, 64-bit in astjax: JAX's with x64 on
    with jax.enable_x64(True):
        got = random.double_sided_maxwell(key, f32(1), f32(2), (400,), f32)
        want = np.asarray(jrandom.double_sided_maxwell(jkey, f32(1), f32(2), (400,), f32))
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("n, p", [(10.0, 0.3), (25.0, 0.97), (300.0, 0.4), (5000.0, 0.8)])
def test_binomial_is_jax_count_for_count(seed, n, p):
    """Inversion (n q <= 10) and BTRS (above) on the same uniforms as JAX."""
    key, jkey = keys(seed)
    got = random.binomial(key, f32(n), f32(p), (500,), f32)
    want = np.asarray(jrandom.binomial(jkey, f32(n), f32(p), (500,), f32))
    assert got.dtype == np.float32
    assert np.mean(got == want) > 0.99


def test_binomial_edge_cases_and_multinomial_agree_with_jax():
    key, jkey = keys(3)
    n = np.array([-1.0, np.nan, np.inf, 3.7, 10.0, 10.0, 0.0], f32)
    p = np.array([0.3, 0.3, 0.3, 0.3, 0.0, 1.0, 0.5], f32)
    got = random.binomial(key, n, p)  # as JAX: nan, nan, inf, a count of 3 trials, 0, 10, 0
    assert np.isnan(got[:2]).all() and got[2] == np.inf and 0 <= got[3] <= 3
    np.testing.assert_array_equal(got[4:], [0, 10, 0])
    probs = np.array([[0.2, 0.0, 0.3, 0.5], [0.7, 0.1, 0.1, 0.1]], f32)
    n = np.array([20.0, 1000.0], f32)
    got = random.multinomial(key, n, probs, shape=(100, 2, 4), dtype=f32)
    want = np.asarray(jrandom.multinomial(jkey, n, probs, shape=(100, 2, 4), dtype=f32))
    assert got.shape == (100, 2, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got.sum(-1), np.broadcast_to(n, (100, 2)))
    assert np.all(got[:, 0, 1] == 0)
    assert np.mean(got == want) > 0.99


def chi2_pvalue(sample, pmf, values):
    observed = np.array([(sample == v).sum() for v in values])
    expected = pmf(values) * sample.size
    keep = expected > 5
    statistic = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    return stats.chi2(keep.sum() - 1).sf(statistic)


@pytest.mark.parametrize("n, p", [(20.0, 0.3), (200.0, 0.6)])
def test_binomial_and_multinomial_in_distribution(n, p):
    sample = np.asarray(random.binomial(random.PRNGKey(4), n, p, (N,)))
    dist = stats.binom(n, p)
    assert abs(sample.mean() - dist.mean()) < 5 * dist.std() / np.sqrt(N)
    assert abs(sample.var() / dist.var() - 1) < 0.08
    assert chi2_pvalue(sample, dist.pmf, np.arange(n + 1)) > 1e-3
    counts = np.asarray(random.multinomial(random.PRNGKey(5), n, np.array([p, (1 - p) / 2,
                                                                           (1 - p) / 2]),
                                           shape=(N, 3)))
    np.testing.assert_array_equal(counts.sum(-1), n)
    assert chi2_pvalue(counts[:, 0], dist.pmf, np.arange(n + 1)) > 1e-3  # a binomial marginal


GAMMA_BASED = [  # (name, arguments after the key, SciPy's distribution)
    ("chisquare", (3.0,), stats.chi2(3.0)),
    ("chisquare", (0.4,), stats.chi2(0.4)),
    ("f", (4.0, 7.0), stats.f(4.0, 7.0)),
    ("t", (5.0,), stats.t(5.0)),
    ("t", (0.8,), stats.t(0.8)),
    ("loggamma", (0.05,), stats.loggamma(0.05)),
    ("loggamma", (3.0,), stats.loggamma(3.0)),
    ("generalized_normal", (1.5,), stats.gennorm(1.5)),
    ("generalized_normal", (0.7,), stats.gennorm(0.7)),
]


@pytest.mark.parametrize("name, args, dist", GAMMA_BASED)
def test_gamma_based_samplers_in_distribution(name, args, dist):
    """Kolmogorov-Smirnov against SciPy, and the mean (JAX's own draws are the same law, other
    numbers: comparing with them would compile a JAX gamma sampler per case for nothing)."""
    sample = np.asarray(getattr(random, name)(random.PRNGKey(6), *args, shape=(N,),
                                              dtype=np.float64))
    assert sample.dtype == np.float64 and sample.shape == (N,) and np.all(np.isfinite(sample))
    assert stats.kstest(sample, dist.cdf).pvalue > 1e-3
    if np.isfinite(dist.var()):
        assert abs(sample.mean() - dist.mean()) < 6 * dist.std() / np.sqrt(N)


@pytest.mark.parametrize("d, p", [(3, 2.0), (2, 1.0), (5, 0.5)])
def test_ball_is_uniform_in_the_lp_ball(d, p):
    """Uniform in the unit Lp ball: ||x||_p ** d is uniform on [0, 1]; signs are even."""
    x = np.asarray(random.ball(random.PRNGKey(7), d, p, (N,), np.float64))
    assert x.shape == (N, d)
    radius = np.sum(np.abs(x) ** p, axis=-1) ** (1 / p)
    assert radius.max() <= 1
    assert stats.kstest(radius ** d, stats.uniform().cdf).pvalue > 1e-3
    assert np.all(np.abs(x.mean(0)) < 5 * x.std(0) / np.sqrt(N))


def test_shapes_and_dtypes_are_jax_s():
    """JAX's result shapes (None: the parameters' broadcast shape) and default dtypes, with
    JAX's x64 flag as astjax's (read with jax.eval_shape: nothing compiles)."""
    key = random.PRNGKey(0)
    col, row = np.ones((2, 1)), np.full((3,), 0.5)
    calls = [("lognormal", (col,), {}), ("lognormal", (), {}), ("pareto", (col,), {}),
             ("rayleigh", (row,), {"shape": (4, 3)}), ("wald", (col,), {}),
             ("weibull_min", (col, row), {}), ("weibull_min", (row, 2.0), {"shape": (2, 1)}),
             ("triangular", (0.0, row, col + 1), {}), ("geometric", (row,), {}),
             ("maxwell", ((2, 3),), {}), ("double_sided_maxwell", (0.0, row), {}),
             ("double_sided_maxwell", (col, 1.0, (4,)), {}), ("chisquare", (col,), {}),
             ("f", (col, 3.0), {"shape": (2, 3)}), ("t", (row,), {"shape": (2, 3)}), ("loggamma", (col,), {}),
             ("generalized_normal", (2.0, (4,)), {}), ("ball", (3, 1.0, (2,)), {}),
             ("binomial", (col, row), {}), ("multinomial", (5.0, row), {}),
             ("multinomial", (col[:, 0], row), {"shape": (2, 3)})]
    with jax.enable_x64(astjax.config.x64_enabled()):
        for name, args, kwargs in calls:
            got = getattr(random, name)(key, *args, **kwargs)
            want = jax.eval_shape(lambda k: getattr(jrandom, name)(k, *args, **kwargs),
                                  jrandom.PRNGKey(0))
            assert (got.shape, got.dtype) == (want.shape, want.dtype), (name, args, kwargs)
    with pytest.raises(ValueError):
        random.pareto(key, np.ones(3), (4,))


def test_typed_keys_and_key_dtype():
    typed, raw = random.key(9), random.PRNGKey(9)
    assert random.key_dtype() == typed.dtype == random.key_dtype("threefry2x32")
    assert str(random.key_dtype()) == str(jrandom.key_dtype())
    for name, args in [("wald", (2.0, (5,))), ("binomial", (30.0, 0.4, (5,))), ("t", (3.0, (5,))),
                       ("multinomial", (9.0, np.array([0.5, 0.5])))]:
        np.testing.assert_array_equal(getattr(random, name)(typed, *args),
                                      getattr(random, name)(raw, *args))


def transformed(key, s):
    return (random.pareto(key, s, (5,), f32), random.geometric(key, 0.3, (5,)),
            random.rayleigh(key, s, (5,), f32))


def looped(key, s):
    k1, k2, k3 = random.split(key, 3)
    return (random.binomial(k1, 40.0, s / 4, (5,), f32), random.chisquare(k2, s, (5,), f32),
            random.multinomial(k3, 9.0, np.array([0.2, 0.3, 0.5], f32), shape=(2, 3), dtype=f32),
            random.triangular(key, -1.0, 0.0, s, (5,), f32))


def assert_same(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
def test_samplers_compile_on_every_backend(backend):
    """The one-draw samplers everywhere; the while loops and the scan (slow to compile on
    Numba) on NumPy and XLA."""
    key = random.PRNGKey(11)
    assert_same(astjax.jit(transformed, backend=backend)(key, f32(1.5)), transformed(key, f32(1.5)))
    if backend != "numba":
        assert_same(astjax.jit(looped, backend=backend)(key, f32(1.5)), looped(key, f32(1.5)))


def test_vmap_over_keys_is_a_loop_over_keys():
    keys_ = random.split(random.PRNGKey(12), 4)
    batched = astjax.vmap(looped, in_axes=(0, None))(keys_, f32(1.5))
    for lane in range(4):
        assert_same([b[lane] for b in batched], looped(keys_[lane], f32(1.5)))


def total(params, key):
    """One float32 sum of samples, each differentiable in its parameters."""
    k = random.split(key, 6)
    return (random.lognormal(k[0], params["sigma"], (20,), f32).sum()
            + random.pareto(k[1], params["b"], (20,), f32).sum()
            + random.weibull_min(k[2], params["scale"], params["c"], (20,), f32).sum()
            + random.rayleigh(k[3], params["scale"], (20,), f32).sum()
            + random.wald(k[4], params["mean"], (20,), f32).sum()
            + random.triangular(k[5], params["left"], params["mean"], params["c"], (20,), f32).sum())


def test_gradients_in_the_parameters_are_jax_s():
    params = {"sigma": f32(0.6), "b": f32(2.5), "scale": f32(1.3), "c": f32(1.7),
              "mean": f32(0.8), "left": f32(-0.5)}
    key, jkey = keys(13)
    got = astjax.grad(total)(params, key)

    def jax_total(params, key):
        k = jrandom.split(key, 6)
        return (jrandom.lognormal(k[0], params["sigma"], (20,), f32).sum()
                + jrandom.pareto(k[1], params["b"], (20,), f32).sum()
                + jrandom.weibull_min(k[2], params["scale"], params["c"], (20,), f32).sum()
                + jrandom.rayleigh(k[3], params["scale"], (20,), f32).sum()
                + jrandom.wald(k[4], params["mean"], (20,), f32).sum()
                + jrandom.triangular(k[5], params["left"], params["mean"], params["c"], (20,),
                                     f32).sum())
    want = jax.grad(jax_total)(params, jkey)
    for name in params:
        np.testing.assert_allclose(got[name], np.asarray(want[name]), rtol=1e-4, err_msg=name)


def implicit_gradient(alpha, x, h=1e-6):
    """d x / d alpha holding the Gamma(alpha) CDF at x fixed (central differences of SciPy's
    gammainc over the gamma density)."""
    dF = (special.gammainc(alpha + h, x) - special.gammainc(alpha - h, x)) / (2 * h)
    return -dF / stats.gamma(alpha).pdf(x)


def test_gamma_based_gradients_are_implicit_reparameterisation():
    key = random.PRNGKey(14)
    df = np.array([0.6, 3.0, 9.0])

    def chi(df):
        return random.chisquare(key, df, None, np.float64)

    def log_gamma(a):
        return random.loggamma(key, a, None, np.float64)

    x = np.asarray(chi(df))
    np.testing.assert_allclose(np.diag(astjax.jacfwd(chi)(df)), implicit_gradient(df / 2, x / 2),
                               rtol=1e-5)
    a = np.array([0.05, 0.7, 4.0])
    y = np.exp(np.asarray(log_gamma(a)))
    np.testing.assert_allclose(astjax.grad(lambda a: log_gamma(a).sum())(a),
                               implicit_gradient(a, y) / y, rtol=1e-5)
