"""astjax.random's samplers against JAX 0.10.2: randint, bernoulli, rademacher, permutation and
choice bit for bit; samplers that apply one function to uniforms, and the rejection samplers
(gamma and what is built on it, poisson: JAX's draws, element by element) to float tolerance;
the rejection samplers in distribution too (Kolmogorov-Smirnov against SciPy, and moments)."""
import numpy as np
import pytest
from scipy import stats

import astjax
from astjax import random
import random_rejection_cases as rejection

jax = pytest.importorskip("jax")
jrandom = jax.random

SEEDS = [0, 7, 2 ** 31 - 1]


def keys(seed):
    return random.PRNGKey(seed), jrandom.PRNGKey(seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape, lo, hi, dtype", [
    ((5,), 0, 10, np.int32), ((3, 4), -7, 1000, np.int32), ((64,), 0, 256, np.uint8),
    ((9,), -128, 127, np.int8), ((4,), 5, 5, np.int32), ((6,), 3, -2, np.int16),
    ((8,), 0, 2 ** 31 - 1, np.int32), ((2, 3), 0, 2 ** 16, np.uint16)])
def test_randint_is_jax_bit_for_bit(seed, shape, lo, hi, dtype):
    key, jkey = keys(seed)
    got = random.randint(key, shape, lo, hi, dtype)
    want = np.asarray(jrandom.randint(jkey, shape, lo, hi, dtype))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def shuffled(key, x):
    return random.permutation(key, x)


def test_permutation_of_a_symbolic_length_compiles_and_is_jax_bit_for_bit():
    """The count of sorting rounds depends on the length only through its class (up to 1,625
    elements, then up to 2,642,245): compiled, lengths in one class share the code."""
    compiled = astjax.jit(shuffled)
    with jax.enable_x64(astjax.config.x64_enabled()):
        for n in (5, 1625, 1626, 4000):
            x = np.arange(n, dtype=np.float32)
            key, jkey = keys(n)
            np.testing.assert_array_equal(compiled(key, x),
                                          np.asarray(jrandom.permutation(jkey, x)))


@pytest.mark.parametrize("seed", SEEDS)
def test_bernoulli_rademacher_permutation_choice_are_jax_bit_for_bit(seed):
    """Compared with JAX under astjax's dtype policy (x64 on: a Python 0.5 is float64, a
    default integer int64), as JAX computes with that flag."""
    key, jkey = keys(seed)
    same = np.testing.assert_array_equal
    p = np.array([0.1, 0.5, 0.9, 0.3], np.float32)
    x = np.arange(12.0).reshape(3, 4)
    with jax.enable_x64(astjax.config.x64_enabled()):
        same(random.bernoulli(key, p), np.asarray(jrandom.bernoulli(jkey, p)))
        same(random.bernoulli(key, 0.3, (3, 5)), np.asarray(jrandom.bernoulli(jkey, 0.3, (3, 5))))
        same(random.rademacher(key, (7,), np.int32),
             np.asarray(jrandom.rademacher(jkey, (7,), np.int32)))
        same(random.permutation(key, 10), np.asarray(jrandom.permutation(jkey, 10)))
        same(random.permutation(key, x, axis=1), np.asarray(jrandom.permutation(jkey, x, axis=1)))
        same(random.permutation(key, x, axis=0, independent=True),
             np.asarray(jrandom.permutation(jkey, x, axis=0, independent=True)))
        same(random.choice(key, 10, (4,)), np.asarray(jrandom.choice(jkey, 10, (4,))))
        same(random.choice(key, x, (2,), replace=False, axis=1),
             np.asarray(jrandom.choice(jkey, x, (2,), replace=False, axis=1)))
        got = random.choice(key, 5, (200,), p=np.array([0.1, 0.2, 0.3, 0.15, 0.25]))
        want = np.asarray(jrandom.choice(jkey, 5, (200,), p=np.array([0.1, 0.2, 0.3, 0.15, 0.25])))
        assert np.mean(got == want) > 0.99  # (cumulative sums may round differently)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name, args", [
    ("exponential", ((1000,),)), ("gumbel", ((1000,),)), ("laplace", ((1000,),)),
    ("logistic", ((1000,),)), ("cauchy", ((1000,),)), ("normal", ((1000,),)),
    ("truncated_normal", (-1.5, 0.5, (1000,)))])
def test_transformed_uniforms_agree_with_jax(seed, name, args):
    key, jkey = keys(seed)
    got = getattr(random, name)(key, *args, dtype=np.float32)
    want = np.asarray(getattr(jrandom, name)(jkey, *args, dtype=np.float32))
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_categorical_multivariate_normal_orthogonal_agree_with_jax(seed):
    key, jkey = keys(seed)
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
    got = random.categorical(key, logits, shape=(100, 2))
    want = np.asarray(jrandom.categorical(jkey, logits, shape=(100, 2)))
    assert np.mean(got == want) > 0.99
    mean = np.array([1.0, -1.0, 0.5], np.float32)
    a = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]], np.float32)
    np.testing.assert_allclose(random.multivariate_normal(key, mean, a, (50,), np.float32),
                               np.asarray(jrandom.multivariate_normal(jkey, mean, a, (50,),
                                                                      np.float32)),
                               rtol=1e-4, atol=1e-4)
    q = random.orthogonal(key, 4, (2,), np.float32)
    np.testing.assert_allclose(q, np.asarray(jrandom.orthogonal(jkey, 4, (2,), np.float32)),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.einsum("bij,bkj->bik", q, q), np.broadcast_to(np.eye(4), (2, 4, 4)),
                               atol=1e-5)


N = 20000


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 40.0])
def test_gamma_in_distribution(alpha):
    sample = np.asarray(random.gamma(random.PRNGKey(3), alpha, (N,), np.float64))
    assert stats.kstest(sample, stats.gamma(alpha).cdf).pvalue > 1e-3


def test_beta_and_dirichlet_in_distribution():
    sample = np.asarray(random.beta(random.PRNGKey(4), 2.0, 5.0, (N,), np.float64))
    assert stats.kstest(sample, stats.beta(2.0, 5.0).cdf).pvalue > 1e-3
    alpha = np.array([1.0, 2.0, 3.0])
    d = np.asarray(random.dirichlet(random.PRNGKey(5), alpha, (N,), np.float64))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-12)
    assert stats.kstest(d[:, 0], stats.beta(1.0, 5.0).cdf).pvalue > 1e-3  # a marginal


@pytest.mark.parametrize("lam", [0.7, 4.0, 30.0, 500.0])
def test_poisson_in_distribution(lam):
    sample = np.asarray(random.poisson(random.PRNGKey(6), lam, (N,)))
    assert sample.dtype.kind == "i"
    assert abs(sample.mean() - lam) < 5 * np.sqrt(lam / N)
    assert abs(sample.var() / lam - 1) < 0.08
    # chi-square of the central counts against the Poisson pmf
    low, high = stats.poisson(lam).ppf([0.01, 0.99]).astype(int)
    values = np.arange(low, high + 1)
    observed = np.array([(sample == v).sum() for v in values])
    expected = stats.poisson(lam).pmf(values) * N
    keep = expected > 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2(keep.sum() - 1).sf(chi2) > 1e-3


def test_samplers_compile_and_batch_over_keys():
    def draw(key):
        return (random.randint(key, (3,), 0, 100), random.gamma(key, 2.0, (3,)),
                random.permutation(key, 5), random.exponential(key, (3,)))
    def draw_light(key):  # Numba compiles the gamma sampler's loop slowly: not here
        return random.randint(key, (3,), 0, 100), random.permutation(key, 5)
    key = random.PRNGKey(11)
    eager = draw(key)
    for backend in ("numpy", "xla"):
        compiled = astjax.jit(draw, backend=backend)(key)
        for e, c in zip(eager, compiled):
            np.testing.assert_allclose(np.asarray(c), np.asarray(e), rtol=1e-6)
    for e, c in zip(draw_light(key), astjax.jit(draw_light, backend="numba")(key)):
        np.testing.assert_array_equal(np.asarray(c), np.asarray(e))
    keys_ = random.split(key, 4)
    batched = astjax.jit(astjax.vmap(draw))(keys_)
    for lane in range(4):
        for b, e in zip(batched, draw(keys_[lane])):
            np.testing.assert_allclose(np.asarray(b)[lane], np.asarray(e), rtol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("axis, shape", [(-1, (3, 2)), (-1, (4, 2)), (0, (3, 2)), (0, None)])
def test_categorical_without_replacement_is_jax_bit_for_bit(seed, axis, shape):
    key, jkey = keys(seed)
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], np.float32))
    logits = logits if axis == -1 else logits.T.copy()
    want = np.asarray(jrandom.categorical(jkey, logits, axis=axis, shape=shape, replace=False))
    got = random.categorical(key, logits, axis=axis, shape=shape, replace=False)
    np.testing.assert_array_equal(got, want)
    for lane in np.moveaxis(got.reshape(-1, 2), -1, 0):
        assert len(set(lane.tolist())) == lane.size  # no category twice
    with pytest.raises(ValueError, match="cannot exceed"):
        random.categorical(key, logits, axis=axis, shape=(5, 2), replace=False)


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_multivariate_normal_methods_agree_with_jax(method):
    key, jkey = keys(2)
    mean = np.array([1.0, -1.0, 0.5], np.float32)
    cov = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]], np.float32)
    got = random.multivariate_normal(key, mean, cov, (40,), np.float32, method=method)
    want = np.asarray(jrandom.multivariate_normal(jkey, mean, cov, (40,), np.float32,
                                                  method=method))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def implicit_gradient(alpha, x, h=1e-6):
    """d x / d alpha holding the Gamma(alpha) CDF at x fixed: -(dF/dalpha) / (dF/dx), from
    SciPy's gammainc (central differences in float64) and the gamma density."""
    from scipy import special
    dF = (special.gammainc(alpha + h, x) - special.gammainc(alpha - h, x)) / (2 * h)
    return -dF / stats.gamma(alpha).pdf(x)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_gamma_samples_differentiate_by_implicit_reparameterisation(backend):
    key = random.PRNGKey(8)
    alpha = np.array([0.4, 1.0, 2.5, 9.0])

    def sample(alpha):
        return random.gamma(key, alpha, (4,), np.float64)

    x = np.asarray(sample(alpha))
    got = astjax.jit(astjax.jacfwd(sample), backend=backend)(alpha)
    np.testing.assert_allclose(np.diag(got), implicit_gradient(alpha, x), rtol=1e-5)
    rev = astjax.jit(astjax.grad(lambda a: sample(a).sum()), backend=backend)(alpha)
    np.testing.assert_allclose(rev, np.diag(got), rtol=1e-10)


def test_beta_and_dirichlet_gradients_are_unbiased():
    """E[d sample / d a] = d E[sample] / d a: for Beta(a, b), b / (a + b)^2; for the first
    component of Dirichlet(alpha), (sum - alpha_0) / sum^2."""
    key = random.PRNGKey(9)
    beta_mean = astjax.jit(astjax.grad(
        lambda a: random.beta(key, a, 2.0, (N,), np.float64).mean()))
    np.testing.assert_allclose(beta_mean(3.0), 2.0 / 25.0, rtol=0.03)
    first = astjax.jit(astjax.grad(
        lambda a: random.dirichlet(key, a, (N,), np.float64)[:, 0].mean()))
    np.testing.assert_allclose(first(np.array([1.0, 2.0, 3.0])), [5 / 36, -1 / 36, -1 / 36],
                               rtol=0.05, atol=3e-3)


@pytest.mark.parametrize("backend, x64", [("xla", False), ("numpy", True)])
def test_rejection_samplers_draw_what_jax_draws(backend, x64, seed=7):
    """Each element from its own key and the same rejection loop as JAX's, so the same numbers
    (up to the last bits of float math: a rejection decided the other way would differ
    wholly)."""
    with jax.enable_x64(x64), astjax.enable_x64(x64):
        want = rejection.rejection_draws(jrandom.PRNGKey(seed))
        got = astjax.jit(rejection.rejection_draws, backend=backend)(random.PRNGKey(seed))
        for name in want:
            for w, g in zip(jax.tree_util.tree_leaves(want[name]),
                            jax.tree_util.tree_leaves(got[name])):
                w, g = np.asarray(w), np.asarray(g)
                assert (g.dtype, g.shape) == (w.dtype, w.shape), name
                np.testing.assert_allclose(g, w, rtol=2e-5 if not x64 else 1e-12, err_msg=name)


def test_rejection_samplers_draw_what_jax_draws_eagerly():
    key, jkey = keys(11)
    alpha = np.array([0.3, 1.0, 4.0])
    with jax.enable_x64(True):
        pairs = [(random.gamma(key, alpha), jrandom.gamma(jkey, alpha)),
                 (random.beta(key, 0.5, 2.0, (3,)), jrandom.beta(jkey, 0.5, 2.0, (3,))),
                 (random.poisson(key, 12.0, (4,)), jrandom.poisson(jkey, 12.0, (4,)))]
    for ours, theirs in pairs:
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12)

