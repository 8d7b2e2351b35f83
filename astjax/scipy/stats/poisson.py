"""The Poisson distribution (jax.scipy.stats.poisson)."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlogy

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, mu, loc=0):
    y, mu = shifted(k, loc), inexact(mu)
    safe = jnp.maximum(y, 0.0)
    return on_counts(y, xlogy(safe, mu) - gammaln(safe + 1.0) - mu)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))
