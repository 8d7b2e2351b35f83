"""The right-skewed Gumbel distribution (jax.scipy.stats.gumbel_r)."""
import astjax.numpy as jnp

from ._util import inexact, from_log, standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -jnp.log(scale) - z - jnp.exp(-z)


pdf = from_log(logpdf)


def logcdf(x, loc=0, scale=1):
    return -jnp.exp(-standardized(x, loc, scale)[0])


def cdf(x, loc=0, scale=1):
    return jnp.exp(logcdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    return -jnp.expm1(logcdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = inexact(q, loc, scale)
    return loc - scale * jnp.log(-jnp.log(q))
