"""The normal distribution (jax.scipy.stats.norm)."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import log_ndtr, ndtr, ndtri

from ._util import from_log, standardized, symmetric


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -0.5 * z * z - jnp.log(scale) - 0.5 * math.log(2 * math.pi)


pdf = from_log(logpdf)
cdf, sf, ppf, isf = symmetric(ndtr, ndtri)


def logcdf(x, loc=0, scale=1):
    return log_ndtr(standardized(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    return log_ndtr(-standardized(x, loc, scale)[0])
