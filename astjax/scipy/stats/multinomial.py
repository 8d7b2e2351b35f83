"""The multinomial distribution (jax.scipy.stats.multinomial); x's last axis is the counts."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlogy

from ._util import inexact


def logpmf(x, n, p):
    x, n, p = inexact(x, n, p)
    value = gammaln(n + 1.0) + jnp.sum(xlogy(x, p) - gammaln(x + 1.0), axis=-1)
    return jnp.where(jnp.sum(x, axis=-1) == n, value, -jnp.inf)


def pmf(x, n, p):
    return jnp.exp(logpmf(x, n, p))
