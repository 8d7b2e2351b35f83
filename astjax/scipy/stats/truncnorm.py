"""The normal distribution truncated to [a, b] (standardised bounds), as
jax.scipy.stats.truncnorm."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import log_ndtr

from ._util import inexact, from_log, standardized, within


def _log_mass(a, b):
    """log(ndtr(b) - ndtr(a)), from the tail that keeps precision."""
    upper = a > 0  # both bounds in the upper tail: use the mirrored lower tail
    lo, hi = jnp.where(upper, -b, a), jnp.where(upper, -a, b)
    log_hi, log_lo = log_ndtr(hi), log_ndtr(lo)
    return log_hi + jnp.log1p(-jnp.exp(log_lo - log_hi))


def logpdf(x, a, b, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    a, b = inexact(a, b)
    value = -0.5 * z * z - 0.5 * math.log(2 * math.pi) - jnp.log(scale) - _log_mass(a, b)
    return within((z >= a) & (z <= b), value)


pdf = from_log(logpdf)


def logcdf(x, a, b, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    a, b = inexact(a, b)
    inside = _log_mass(a, jnp.clip(z, a, b)) - _log_mass(a, b)
    return jnp.where(z <= a, -jnp.inf, jnp.where(z >= b, 0.0, inside))


def cdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x, a, b, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    a, b = inexact(a, b)
    inside = _log_mass(jnp.clip(z, a, b), b) - _log_mass(a, b)
    return jnp.where(z <= a, 0.0, jnp.where(z >= b, -jnp.inf, inside))


def sf(x, a, b, loc=0, scale=1):
    return jnp.exp(logsf(x, a, b, loc, scale))
