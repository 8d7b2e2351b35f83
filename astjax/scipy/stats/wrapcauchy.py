"""The wrapped Cauchy distribution on [0, 2 pi] (jax.scipy.stats.wrapcauchy)."""
import math

import astjax.numpy as jnp

from ._util import inexact, from_log, within


def logpdf(x, c):
    x, c = inexact(x, c)
    value = jnp.log1p(-c * c) - math.log(2 * math.pi) - jnp.log1p(c * c - 2.0 * c * jnp.cos(x))
    return within((x >= 0) & (x <= 2 * math.pi) & (c > 0) & (c < 1), value, jnp.nan)


pdf = from_log(logpdf)
