"""The beta distribution (jax.scipy.stats.beta): densities (the CDF needs betainc)."""
import astjax.numpy as jnp
from astjax.scipy.special import betaln, xlog1py, xlogy

from ._util import inexact, from_log, standardized, within


def logpdf(x, a, b, loc=0, scale=1):
    y, scale = standardized(x, loc, scale)
    a, b = inexact(a, b)
    safe = jnp.clip(y, 0.0, 1.0)
    value = xlogy(a - 1.0, safe) + xlog1py(b - 1.0, -safe) - betaln(a, b) - jnp.log(scale)
    return within((y >= 0) & (y <= 1), value)


pdf = from_log(logpdf)
