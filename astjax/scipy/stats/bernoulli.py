"""The Bernoulli distribution (jax.scipy.stats.bernoulli)."""
import astjax.numpy as jnp

from ._discrete import shifted
from ._util import inexact


def logpmf(k, p, loc=0):
    y, p = shifted(k, loc), inexact(p)
    return jnp.where(y == 1, jnp.log(p), jnp.where(y == 0, jnp.log1p(-p), -jnp.inf))


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    k, p = inexact(k, p)
    return jnp.where(k < 0, 0.0, jnp.where(k < 1, 1.0 - p, 1.0))


def ppf(q, p):
    q, p = inexact(q, p)
    inside = (q >= 0) & (q <= 1)
    return jnp.where(inside, jnp.where(q <= 1.0 - p, 0.0, 1.0), jnp.nan)
