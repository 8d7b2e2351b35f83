"""The uniform distribution on [loc, loc + scale] (jax.scipy.stats.uniform)."""
import astjax.numpy as jnp

from ._util import inexact, from_log, within


def logpdf(x, loc=0, scale=1):
    x, loc, scale = inexact(x, loc, scale)
    return within((x >= loc) & (x <= loc + scale), -jnp.log(scale))


pdf = from_log(logpdf)


def cdf(x, loc=0, scale=1):
    x, loc, scale = inexact(x, loc, scale)
    return jnp.clip((x - loc) / scale, 0.0, 1.0)


def ppf(q, loc=0, scale=1):
    q, loc, scale = inexact(q, loc, scale)
    return jnp.where((q >= 0) & (q <= 1), loc + q * scale, jnp.nan)
