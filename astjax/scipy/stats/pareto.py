"""The Pareto distribution (jax.scipy.stats.pareto)."""
import astjax.numpy as jnp

from ._util import inexact, from_log, standardized, within


def logpdf(x, b, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    b = inexact(b, z)[0]  # (in z's dtype when a Python number, as JAX promotes)
    return within(z >= 1, jnp.log(b) - jnp.log(scale) - (b + 1.0) * jnp.log(jnp.maximum(z, 1.0)))


pdf = from_log(logpdf)


def logsf(x, b, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    return jnp.where(z >= 1, -inexact(b) * jnp.log(jnp.maximum(z, 1.0)), 0.0)


def sf(x, b, loc=0, scale=1):
    return jnp.exp(logsf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    return -jnp.expm1(logsf(x, b, loc, scale))


def logcdf(x, b, loc=0, scale=1):
    return jnp.log(cdf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = inexact(q, b, loc, scale)
    return loc + scale * (1.0 - q) ** (-1.0 / b)
