"""The Laplace distribution (jax.scipy.stats.laplace)."""
import math

import astjax.numpy as jnp

from ._util import from_log, standardized


def logpdf(x, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    return -math.log(2.0) - jnp.log(scale) - jnp.abs(z)


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    z = standardized(x, loc, scale)[0]
    half = 0.5 * jnp.exp(-jnp.abs(z))
    return jnp.where(z < 0, half, 1.0 - half)
