"""Programs using jax.scipy.special and jax.scipy.stats, written against JAX's API (the tests
run them on JAX too). Each takes one float64 vector x of values in (0.05, 0.95)."""
import jax.numpy as jnp
from jax.scipy import special, stats


def normal_family(x):
    z = 6.0 * x - 3.0
    n = stats.norm
    return (n.logpdf(z, 0.5, 2.0) + n.cdf(z) + n.logcdf(z * 10.0) + n.sf(z) + n.logsf(z * 5.0)
            + n.ppf(x, 1.0, 3.0) + n.isf(x) + n.pdf(z))


def heavy_tails(x):
    z = 8.0 * x - 4.0
    c, lg = stats.cauchy, stats.logistic
    return (stats.t.logpdf(z, 3.5, 0.2, 1.5) + c.logpdf(z, 1.0) + c.cdf(z) + c.logsf(z)
            + c.ppf(x) + c.isf(x) + lg.logpdf(z) + lg.cdf(z) + lg.sf(z) + lg.ppf(x, 0.5, 2.0)
            + lg.isf(x) + stats.laplace.logpdf(z, 0.3) + stats.laplace.cdf(z) + stats.t.pdf(z, 2.0))


def skewed(x):
    z = 6.0 * x - 1.0
    e, gr, gl, p = stats.expon, stats.gumbel_r, stats.gumbel_l, stats.pareto
    return (e.logpdf(z, 0.0, 2.0) + e.cdf(z) + e.logsf(z) + e.ppf(x) + gr.logpdf(z) + gr.cdf(z)
            + gr.logsf(z) + gr.ppf(x) + gl.logpdf(z) + gl.cdf(z) + gl.logcdf(z) + gl.ppf(x)
            + p.logpdf(z + 2.0, 2.5) + p.cdf(z + 2.0, 2.5) + p.logsf(z + 2.0, 1.5) + p.ppf(x, 3.0)
            + stats.uniform.logpdf(z, -1.0, 4.0) + stats.uniform.cdf(z, 0.0, 2.0)
            + stats.uniform.ppf(x, 1.0, 2.0))


def densities_with_shapes(x):
    z = 5.0 * x
    return (stats.gamma.logpdf(z, 2.5, 0.1, 1.3) + stats.chi2.logpdf(z, 3.0)
            + stats.beta.logpdf(x, 2.0, 3.5) + stats.beta.pdf(x, 0.5, 0.7)
            + stats.gennorm.logpdf(z - 2.0, 1.5) + stats.wrapcauchy.logpdf(z, 0.4)
            + stats.truncnorm.logpdf(z - 2.0, -1.5, 2.5) + stats.truncnorm.logcdf(z - 2.0, -1.5, 2.5)
            + stats.truncnorm.logsf(z - 2.0, -1.5, 2.5) + stats.truncnorm.cdf(z, 3.0, 8.0))


def discrete(x):
    k = jnp.floor(10.0 * x)
    return (stats.poisson.logpmf(k, 3.5) + stats.binom.logpmf(k, 9.0, 0.3)
            + stats.nbinom.logpmf(k, 4.0, 0.6)
            + stats.geom.logpmf(k + 1.0, 0.25) + stats.bernoulli.logpmf(jnp.floor(2.0 * x), 0.3)
            + stats.bernoulli.cdf(2.0 * x - 0.5, 0.3) + stats.bernoulli.ppf(x, 0.4)
            + stats.poisson.pmf(k, 2.0))


def multivariate(x):
    cov = jnp.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
    points = jnp.stack([x[:3], x[3:6], x[::3][:3]])
    simplex = x[:3] / jnp.sum(x[:3])
    counts = jnp.array([2, 3, 1])
    return (jnp.sum(stats.multivariate_normal.logpdf(points, x[:3], cov))
            + stats.multivariate_normal.pdf(x[3:6], jnp.zeros(3), cov)
            + stats.dirichlet.logpdf(simplex, 1.0 + x[:3] * 4.0)
            + stats.multinomial.logpmf(counts, 6, simplex) + stats.sem(x))


def special_functions(x):
    z = 8.0 * x - 4.0
    s = special
    return (s.erf(z) + s.erfc(z) + s.erfinv(2.0 * x - 1.0) + s.ndtr(z) + s.log_ndtr(5.0 * z)
            + s.ndtri(x ** 4) + s.gammaln(z) + s.digamma(z + 4.5) + s.gamma(z) + s.gammasgn(z)
            + s.betaln(x, 1.0 - x) + s.beta(x, 2.0) + s.factorial(3.0 * x) + s.comb(9.0, 3.0 * x)
            + s.poch(x, 2.5) + s.multigammaln(x + 2.0, 3) + s.xlogy(x, x) + s.xlog1py(z, x)
            + s.entr(z) + s.rel_entr(x, 1.0 - x) + s.kl_div(x, 1.0 - x) + s.expit(z) + s.logit(x)
            + s.boxcox(x, 0.5) + s.boxcox1p(x, 0.0) + s.zeta(2.0 + z * z, x + 0.5)
            + s.polygamma(2, x + 1.0) + s.loggamma(x))


def smooth_special(x):
    """The special functions at points where JAX's derivatives are finite."""
    z = 6.0 * x - 3.0
    s = special
    return (s.erf(z) + s.ndtr(z) + s.log_ndtr(5.0 * z) + s.ndtri(x ** 4) + s.gammaln(x + 0.5)
            + s.digamma(z + 4.5) + s.gamma(x + 1.0) + s.betaln(x, 1.0 - x) + s.poch(x, 2.5)
            + s.multigammaln(x + 2.0, 3) + s.xlogy(x, x) + s.entr(x) + s.rel_entr(x, 1.0 - x)
            + s.kl_div(x, 1.0 - x) + s.expit(z) + s.logit(x) + s.boxcox(x, 0.5)
            + s.zeta(2.0 + z * z, x + 0.5) + s.polygamma(2, x + 1.0))


def reductions(x):
    m = jnp.reshape(x, (2, -1))
    return (special.logsumexp(m, axis=1) + special.softmax(m, axis=0)[:, 0]
            + special.log_softmax(m)[:, 1], special.logsumexp(m, b=m - 0.5, return_sign=True))


def incomplete_and_bessel(x):
    z = 6.0 * x
    s = special
    return (s.gammainc(1.5 + x, z) + s.gammaincc(2.5, z) + s.betainc(1.5, 2.5, x)
            + s.i0(z - 3.0) + s.i0e(z) + s.i1(3.0 - z) + s.i1e(z) + s.erfcx(8.0 * x - 2.0)
            + s.dawsn(9.0 * x - 3.0) + jnp.sum(s.bessel_jn(z + 0.5, v=3), axis=0))


def integrals(x):
    z = 6.0 * x
    s = special
    si, ci = s.sici(10.0 * x - 2.0)
    fs, fc = s.fresnel(5.0 * x - 1.0)
    w = s.wofz(z - 3.0 + 1j * (2.0 * x - 0.8))
    return (s.expi(z - 2.0) + s.exp1(z) + s.expn(3, z) + si + ci + fs + fc + jnp.real(w)
            + jnp.imag(w) + s.spence(3.0 * x) + s.owens_t(z - 3.0, 2.0 * x - 0.5)
            + s.owens_t(z, 4.0))


def iterations_on_numba(x):
    """The Numba backend's share of the iterative functions: one per kind of loop (its cold
    compile of incomplete_and_bessel, integrals and distributions_by_cdf takes minutes)."""
    z = 6.0 * x
    return special.gammaincc(2.5, z) + special.expn(3, z) + stats.beta.cdf(x, 2.0, 3.5)


def hypergeometric(x):
    s = special
    return (s.hyp1f1(0.5 + x, 2.5, 6.0 * x) + s.hyp1f1(1.5, 1.0 + x, 10.0 * x)
            + s.hyp2f1(0.5 + x, 1.5, 2.5, 0.9 * x) + s.hyp2f1(1.5, 0.5, 3.0 - x, x))


def harmonics(x):
    n = jnp.array([0, 1, 2, 3, 3, 4, 5, 2])
    m = jnp.array([0, -1, 2, 1, -3, 0, 4, -2])
    y = special.sph_harm_y(n, m, x * 3.0, x * 6.0, n_max=5)
    return jnp.real(y), jnp.imag(y)


def distributions_by_cdf(x):
    z = 5.0 * x
    return (stats.gamma.cdf(z, 2.5) + stats.gamma.sf(z, 1.5, 0.1, 1.3)
            + stats.gamma.logcdf(z, 2.5) + stats.gamma.logsf(z, 0.5) + stats.chi2.cdf(z, 3.0)
            + stats.chi2.sf(z, 4.5) + stats.chi2.logcdf(z, 2.0) + stats.chi2.logsf(z, 3.0)
            + stats.beta.cdf(x, 2.0, 3.5) + stats.beta.sf(x, 0.5, 0.7)
            + stats.beta.logcdf(x, 1.5, 2.0) + stats.beta.logsf(x, 2.0, 1.5)
            + stats.gennorm.cdf(z - 2.5, 1.5) + stats.poisson.cdf(jnp.floor(2.0 * z), 3.5)
            + stats.vonmises.logpdf(z, 2.0 + x) + stats.vonmises.pdf(z, 0.5))


def ranks(x):
    k = jnp.floor(4.0 * x)
    table = jnp.reshape(k, (4, 2))
    found = stats.mode(table)
    return (stats.rankdata(k), stats.rankdata(k, "min"), stats.rankdata(k, "max"),
            stats.rankdata(k, "dense"), stats.rankdata(x, "ordinal"),
            stats.rankdata(table, axis=0), found.mode, found.count, stats.mode(k, axis=None).mode)


VALUES = [normal_family, heavy_tails, skewed, densities_with_shapes, discrete, multivariate,
          special_functions, reductions, incomplete_and_bessel, integrals, hypergeometric,
          harmonics, distributions_by_cdf, ranks]
SLOW_ON_NUMBA = {incomplete_and_bessel: iterations_on_numba, integrals: iterations_on_numba,
                 distributions_by_cdf: iterations_on_numba}
GRADS = [normal_family, heavy_tails, densities_with_shapes, multivariate, smooth_special,
         incomplete_and_bessel, integrals, hypergeometric, distributions_by_cdf]
