"""astjax.scipy.special: SciPy's special functions with JAX's signatures and conventions.

Each is a composition of primitives (so it compiles on every backend, differentiates and
batches): log-gamma and its relatives, the error function family, the normal distribution's
ndtr/log_ndtr/ndtri, entropies, the Hurwitz zeta function (Euler-Maclaurin, as JAX), the
log-sum-exp family, the incomplete gamma and beta functions and the modified Bessel functions
(from lax). The Faddeeva family, the exponential integrals, the hypergeometric functions, Spence's
function, Owen's T, bessel_jn and the spherical harmonics live in the private modules beside
this one. Integer inputs compute in the default float type.
"""
import math

import numpy as np

import astjax.numpy as jnp
from astjax import lax, nn

from .. import config
from ..core.ir import Var
from ..lax.special import _bernoulli_numbers
from ._expint import exp1, expi, expn, sici  # noqa: F401
from ._faddeeva import dawsn, erfcx, fresnel, wofz  # noqa: F401
from ._harmonics import bessel_jn, sph_harm_y  # noqa: F401
from ._hypergeometric import hyp1f1, hyp2f1  # noqa: F401
from ._integrals import owens_t, spence  # noqa: F401
from ._util import inexact


def _const(value, like):
    return np.asarray(value, jnp.asarray(like).dtype)


# ---------------------------------------------------------------- the error function family
def erf(x):
    return lax.erf(inexact(x))


def erfc(x):
    return lax.erfc(inexact(x))


def erfinv(x):
    return lax.erf_inv(inexact(x))


def ndtr(x):
    """The standard normal CDF, from erf near 0 and erfc in the tails (no cancellation)."""
    x = inexact(x)
    w = x * _const(1 / math.sqrt(2), x)
    z = jnp.abs(w)
    y = jnp.where(z < 1 / math.sqrt(2), 1.0 + lax.erf(w),
                  jnp.where(w > 0, 2.0 - lax.erfc(z), lax.erfc(z)))
    return 0.5 * y


def log_ndtr(x, series_order=3):
    """log(ndtr(x)), accurate far into the lower tail (an asymptotic series below -20, or -10
    in float32) and in the upper one (log1p(-ndtr(-x)) above 0)."""
    if not isinstance(series_order, int) or not 0 <= series_order <= 30:
        raise ValueError("log_ndtr: series_order must be an int in [0, 30]")
    x = inexact(x)
    lower = -10.0 if jnp.asarray(x).dtype == np.float32 else -20.0
    middle = jnp.log(ndtr(jnp.clip(x, lower, 0.0)))
    upper = jnp.log1p(-ndtr(-jnp.maximum(x, 0.0)))
    tail = _log_ndtr_lower(jnp.minimum(x, lower), series_order)
    return jnp.where(x > 0, upper, jnp.where(x > lower, middle, tail))


def _log_ndtr_lower(x, series_order):
    x2 = x * x
    log_scale = -0.5 * x2 - jnp.log(-x) - 0.5 * math.log(2 * math.pi)
    return log_scale + jnp.log(_asymptotic_series(x2, series_order))


def _asymptotic_series(x2, order):
    """1 - 1/x^2 + 3/x^4 - 15/x^6 + ...: (2n-1)!! / x^(2n) with alternating signs."""
    total, power = 1.0, x2
    for n in range(1, order + 1):
        term = math.prod(range(2 * n - 1, 0, -2)) / power
        total = total + (-term if n % 2 else term)
        power = power * x2
    return total


def ndtri(p):
    """The inverse of ndtr: erf_inv's answer refined by Newton steps on log(ndtr(x)) - log(p)
    (so the far lower tail, where 2p - 1 rounds to -1, keeps full precision); -inf at 0,
    inf at 1, nan outside [0, 1]."""
    p = inexact(p)
    inside = (p > 0) & (p < 1)
    q = jnp.where(inside, p, 0.5)
    central = math.sqrt(2) * lax.erf_inv(2.0 * q - 1.0)
    log_q = jnp.log(q)
    t = -2.0 * log_q  # a start for the far tail: x ~ -sqrt(t - log(2 pi t))
    tail = -jnp.sqrt(jnp.maximum(t - jnp.log(2 * math.pi * t), 1.0))
    x = jnp.where(q < 1e-12, tail, central)
    for _ in range(3):
        x = _newton_step(x, q, log_q)
    x = jnp.where(inside, x, jnp.where(p == 0, -jnp.inf, jnp.where(p == 1, jnp.inf, jnp.nan)))
    return x


def _newton_step(x, q, log_q):
    """One Newton step for log(ndtr(x)) = log(q) below the median, for ndtr(x) = q above it
    (in the upper half log(ndtr) flattens out and loses precision)."""
    log_density = -0.5 * x * x - 0.5 * math.log(2 * math.pi)
    log_cdf = log_ndtr(x)
    lower = x - (log_cdf - log_q) / jnp.exp(log_density - log_cdf)
    upper = x + (ndtr(-x) - (1.0 - q)) / jnp.exp(log_density)
    return jnp.where(q < 0.5, lower, upper)


# ---------------------------------------------------------------- gamma and beta functions
def gammaln(x):
    return lax.lgamma(inexact(x))


def loggamma(x):
    """log Gamma(x) for real x: nan below 0, as JAX."""
    x = inexact(x)
    return jnp.where(x < 0, jnp.nan, lax.lgamma(x))


def digamma(x):
    return lax.digamma(inexact(x))


def polygamma(n, x):
    x = inexact(x)
    return lax.polygamma(jnp.asarray(n).astype(jnp.asarray(x).dtype), x)


def gammasgn(x):
    """The sign of Gamma(x): 1 for x >= 0; alternating between the poles below 0; nan at
    them."""
    x = inexact(x)
    pole = (x < 0) & (x == jnp.floor(x))
    odd = jnp.remainder(jnp.floor(x), 2.0) != 0
    sign = jnp.where(x >= 0, 1.0, jnp.where(odd, -1.0, 1.0))
    return jnp.where(pole, jnp.nan, jnp.where(jnp.isnan(x), jnp.nan, sign))


def gamma(x):
    x = inexact(x)
    return gammasgn(x) * jnp.exp(lax.lgamma(x))


def betaln(a, b):
    a, b = inexact(a, b)
    return lax.lgamma(a) + lax.lgamma(b) - lax.lgamma(a + b)


def beta(a, b):
    a, b = inexact(a, b)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * jnp.exp(betaln(a, b))


def factorial(n, exact=False):
    if exact:
        if not isinstance(n, Var):  # concrete integers: SciPy's exact (Python int) factorial
            import scipy.special
            return scipy.special.factorial(np.asarray(n), exact=True)
        raise NotImplementedError("factorial(exact=True) of a value known only when the "
                                  "function runs: exact factorials are Python integers")
    n = inexact(n)
    return jnp.where(n < 0, 0.0, jnp.exp(lax.lgamma(n + 1.0)))


def comb(N, k, *, exact=False, repetition=False):
    if exact:
        raise NotImplementedError("comb(exact=True) needs Python integers: use math.comb")
    N, k = inexact(N, k)
    if repetition:
        return comb(N + k - 1.0, k)
    valid = (k >= 0) & (N >= k)
    count = jnp.exp(lax.lgamma(N + 1.0) - lax.lgamma(k + 1.0) - lax.lgamma(N - k + 1.0))
    return jnp.where(valid, count, 0.0)


def poch(z, m):
    """The rising factorial Gamma(z + m) / Gamma(z)."""
    z, m = inexact(z, m)
    sign = gammasgn(z + m) * gammasgn(z)
    return jnp.where(m == 0, 1.0, sign * jnp.exp(lax.lgamma(z + m) - lax.lgamma(z)))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d (a static int)."""
    d = int(d)
    a = inexact(a)
    total = d * (d - 1) / 4 * math.log(math.pi)
    for j in range(d):
        total = total + lax.lgamma(a - j / 2)
    return total


# ---------------------------------------------------------------- logs, entropies, transforms
def xlogy(x, y):
    """x * log(y), 0 where x == 0 (whatever y is)."""
    x, y = inexact(x, y)
    safe = jnp.where(x == 0, 1.0, y)
    return jnp.where(x == 0, 0.0, x * jnp.log(safe))


def xlog1py(x, y):
    x, y = inexact(x, y)
    safe = jnp.where(x == 0, 0.0, y)
    return jnp.where(x == 0, 0.0, x * jnp.log1p(safe))


def entr(x):
    """-x log x for x > 0, 0 at 0, -inf below."""
    x = inexact(x)
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, -x * jnp.log(safe), jnp.where(x == 0, 0.0, -jnp.inf))


def rel_entr(p, q):
    p, q = inexact(p, q)
    both = (p > 0) & (q > 0)
    ratio = jnp.where(both, p / jnp.where(both, q, 1.0), 1.0)
    return jnp.where(both, p * jnp.log(ratio), jnp.where((p == 0) & (q >= 0), 0.0, jnp.inf))


def kl_div(p, q):
    p, q = inexact(p, q)
    both = (p > 0) & (q > 0)
    ratio = jnp.where(both, p / jnp.where(both, q, 1.0), 1.0)
    return jnp.where(both, p * jnp.log(ratio) - p + q,
                     jnp.where((p == 0) & (q >= 0), q, jnp.inf))


def expit(x):
    return lax.logistic(inexact(x))


def logit(x):
    x = inexact(x)
    return jnp.log(x / (1.0 - x))


def boxcox(x, lmbda):
    x, lmbda = inexact(x, lmbda)
    safe = jnp.where(lmbda == 0, 1.0, lmbda)
    return jnp.where(lmbda == 0, jnp.log(x), jnp.expm1(lmbda * jnp.log(x)) / safe)


def boxcox1p(x, lmbda):
    x, lmbda = inexact(x, lmbda)
    safe = jnp.where(lmbda == 0, 1.0, lmbda)
    return jnp.where(lmbda == 0, jnp.log1p(x), jnp.expm1(lmbda * jnp.log1p(x)) / safe)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    if where is not None:
        raise NotImplementedError("logsumexp(where=...) is not supported yet; mask with "
                                  "jnp.where(mask, a, -jnp.inf)")
    return nn.logsumexp(inexact(a), axis, b, keepdims, return_sign)


def softmax(x, axis=None):
    """As SciPy's: over all axes unless `axis` is given (jax.nn.softmax's default is -1)."""
    return nn.softmax(inexact(x), axis)


def log_softmax(x, axis=None):
    return nn.log_softmax(inexact(x), axis)


# ---------------------------------------------------------------- zeta and Bernoulli numbers
def bernoulli(n):
    """The Bernoulli numbers B_0 .. B_n (n a static int)."""
    n = int(n)
    if n < 0:
        raise ValueError("bernoulli: n must be non-negative")
    return jnp.asarray(np.array([float(b) for b in _bernoulli_numbers(n)],
                                config.default_dtype("float")))


def zeta(x, q=None):
    """The Hurwitz zeta function sum_k (q + k)^-x (lax.zeta). Differentiable in q."""
    if q is None:
        raise NotImplementedError("the Riemann zeta function is not implemented: pass q "
                                  "(zeta(x, 1.0) is Riemann's)")
    s, a = inexact(x, q)
    return lax.zeta(s, a)


# ---------------------------------------------------------------- incomplete gamma and beta
def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return lax.igamma(*inexact(a, x))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return lax.igammac(*inexact(a, x))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    return lax.betainc(*inexact(a, b, x))


# ---------------------------------------------------------------- modified Bessel functions
def i0e(x):
    return lax.bessel_i0e(inexact(x))


def i1e(x):
    return lax.bessel_i1e(inexact(x))


def i0(x):
    x = inexact(x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i0e(x)


def i1(x):
    x = inexact(x)
    return jnp.exp(jnp.abs(x)) * lax.bessel_i1e(x)
