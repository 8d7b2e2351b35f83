"""The Cauchy distribution (jax.scipy.stats.cauchy)."""
import math

import astjax.numpy as jnp

from ._util import from_log, standardized, symmetric


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(z * z)


def _standard_cdf(z):
    return 0.5 + jnp.arctan(z) / math.pi


def _standard_ppf(q):
    return jnp.tan(math.pi * (q - 0.5))


pdf = from_log(logpdf)
cdf, sf, ppf, isf = symmetric(_standard_cdf, _standard_ppf)


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def logsf(x, loc=0, scale=1):
    return jnp.log(sf(x, loc, scale))
