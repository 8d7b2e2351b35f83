"""The gamma distribution (jax.scipy.stats.gamma): densities (the CDF needs gammainc)."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlogy

from ._util import inexact, from_log, standardized, within


def logpdf(x, a, loc=0, scale=1):
    y, scale = standardized(x, loc, scale)
    a = inexact(a)
    safe = jnp.maximum(y, 0.0)
    return within(y >= 0, xlogy(a - 1.0, safe) - safe - gammaln(a) - jnp.log(scale))


pdf = from_log(logpdf)
