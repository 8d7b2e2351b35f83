"""The logistic distribution (jax.scipy.stats.logistic)."""
import astjax.numpy as jnp
from astjax import nn
from astjax.scipy.special import expit, logit

from ._util import from_log, standardized, symmetric


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -z - 2.0 * nn.softplus(-z) - jnp.log(scale)


pdf = from_log(logpdf)
cdf, sf, ppf, isf = symmetric(expit, logit)
