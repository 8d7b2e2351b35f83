"""Student's t distribution (jax.scipy.stats.t)."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import gammaln

from ._util import inexact, from_log, standardized


def logpdf(x, df, loc=0, scale=1):
    z, scale = standardized(x, loc, scale)
    df = inexact(df, z)[0]  # (in z's dtype when a Python number, as JAX promotes)
    half = 0.5 * (df + 1.0)
    return (gammaln(half) - gammaln(0.5 * df) - 0.5 * jnp.log(df * math.pi) - jnp.log(scale)
            - half * jnp.log1p(z * z / df))


pdf = from_log(logpdf)
