"""The exponential distribution (jax.scipy.stats.expon)."""
import astjax.numpy as jnp

from ._util import inexact, from_log, standardized, within


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return within(z >= 0, -z - jnp.log(scale))


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    return jnp.where(z >= 0, -jnp.expm1(-jnp.maximum(z, 0.0)), 0.0)


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    return jnp.where(z >= 0, -z, 0.0)


def ppf(q, loc=0, scale=1):
    q, loc, scale = inexact(q, loc, scale)
    return loc - scale * jnp.log1p(-q)
