"""The logistic distribution (jax.scipy.stats.logistic)."""
import astjax.numpy as jnp
from astjax import nn
from astjax.scipy.special import expit, logit

from ._util import _float, from_log, standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -z - 2.0 * nn.softplus(-z) - jnp.log(scale)


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    return expit(standardized(x, loc, scale)[0])


def sf(x, loc=0, scale=1):
    return expit(-standardized(x, loc, scale)[0])


def ppf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc + scale * logit(q)


def isf(q, loc=0, scale=1):
    q, loc, scale = _float(q, loc, scale)
    return loc - scale * logit(q)
