"""The gamma distribution (jax.scipy.stats.gamma): densities and the CDF (the regularized incomplete gamma function)."""
import astjax.numpy as jnp
from astjax.scipy.special import gammainc, gammaincc, gammaln, xlogy

from ._util import inexact, from_log, standardized, within


def logpdf(x, a, loc=0, scale=1):
    y, scale = standardized(x, loc, scale)
    a = inexact(a, y)[0]  # (in y's dtype when a Python number, as JAX promotes)
    safe = jnp.maximum(y, 0.0)
    return within(y >= 0, xlogy(a - 1.0, safe) - safe - gammaln(a) - jnp.log(scale))


pdf = from_log(logpdf)


def cdf(x, a, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    return gammainc(inexact(a), jnp.maximum(y, 0.0))


def sf(x, a, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    return gammaincc(inexact(a), jnp.maximum(y, 0.0))


def logcdf(x, a, loc=0, scale=1):
    return jnp.log(cdf(x, a, loc, scale))


def logsf(x, a, loc=0, scale=1):
    return jnp.log(sf(x, a, loc, scale))
