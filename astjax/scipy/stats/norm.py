"""The normal distribution (jax.scipy.stats.norm)."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import log_ndtr, ndtr, ndtri

from ._util import _float, from_log, standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -0.5 * z * z - jnp.log(scale) - 0.5 * math.log(2 * math.pi)


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    return ndtr(standardized(x, loc, scale)[0])


def logcdf(x, loc=0, scale=1):
    return log_ndtr(standardized(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    return ndtr(-standardized(x, loc, scale)[0])


def logsf(x, loc=0, scale=1):
    return log_ndtr(-standardized(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc + scale * ndtri(q)


def isf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc - scale * ndtri(q)
