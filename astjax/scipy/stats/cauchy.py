"""The Cauchy distribution (jax.scipy.stats.cauchy)."""
import math

import astjax.numpy as jnp

from ._util import _float, from_log, standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(z * z)


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    return 0.5 + jnp.arctan(standardized(x, loc, scale)[0]) / math.pi


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    return 0.5 - jnp.arctan(standardized(x, loc, scale)[0]) / math.pi


def logsf(x, loc=0, scale=1):
    return jnp.log(sf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc + scale * jnp.tan(math.pi * (q - 0.5))


def isf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc - scale * jnp.tan(math.pi * (q - 0.5))
