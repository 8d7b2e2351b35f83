"""The chi-squared distribution (jax.scipy.stats.chi2): densities and the CDF (by gammainc)."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import gammainc, gammaincc, gammaln, xlogy

from ._util import inexact, from_log, standardized, within


def logpdf(x, df, loc=0, scale=1):
    y, scale = standardized(x, loc, scale)
    k = 0.5 * inexact(df)
    safe = jnp.maximum(y, 0.0)
    value = xlogy(k - 1.0, safe) - 0.5 * safe - gammaln(k) - k * math.log(2.0) - jnp.log(scale)
    return within(y >= 0, value)


pdf = from_log(logpdf)


def cdf(x, df, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    return gammainc(0.5 * inexact(df), 0.5 * jnp.maximum(y, 0.0))


def sf(x, df, loc=0, scale=1):
    y, _ = standardized(x, loc, scale)
    return gammaincc(0.5 * inexact(df), 0.5 * jnp.maximum(y, 0.0))


def logcdf(x, df, loc=0, scale=1):
    return jnp.log(cdf(x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    return jnp.log(sf(x, df, loc, scale))
