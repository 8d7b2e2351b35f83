"""The beta distribution (jax.scipy.stats.beta): densities and the CDF (the regularized incomplete beta function)."""
import astjax.numpy as jnp
from astjax.scipy.special import betainc, betaln, xlog1py, xlogy

from ._util import inexact, from_log, standardized, within


def logpdf(x, a, b, loc=0, scale=1):
    y, scale = standardized(x, loc, scale)
    a, b = inexact(a, b)
    safe = jnp.clip(y, 0.0, 1.0)
    value = xlogy(a - 1.0, safe) + xlog1py(b - 1.0, -safe) - betaln(a, b) - jnp.log(scale)
    return within((y >= 0) & (y <= 1), value)


pdf = from_log(logpdf)


def cdf(x, a, b, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    a, b = inexact(a, b)
    return betainc(a, b, jnp.clip(y, 0.0, 1.0))


def sf(x, a, b, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    a, b = inexact(a, b)
    return betainc(b, a, 1.0 - jnp.clip(y, 0.0, 1.0))


def logcdf(x, a, b, loc=0, scale=1):
    return jnp.log(cdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    return jnp.log(sf(x, a, b, loc, scale))
