"""The Poisson distribution (jax.scipy.stats.poisson)."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import gammaincc, gammaln, xlogy

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, mu, loc=0):
    y, mu = shifted(k, loc), inexact(mu)
    safe = jnp.maximum(y, 0.0)
    return on_counts(y, xlogy(safe, mu) - gammaln(safe + 1.0) - mu)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    y, mu = shifted(k, loc), inexact(mu)
    return jnp.where(y < 0, 0.0, gammaincc(jnp.floor(y) + 1.0, mu))


# below this mean the entropy is summed over k < _TERMS (the mass beyond is below 1e-40);
# above it, the asymptotic series in 1/mu is exact to 1e-11
_SUMMED_BELOW, _TERMS = 400.0, 700


def entropy(mu, loc=0):
    """-sum_k p(k) log p(k); nan for mu <= 0. loc does not change it."""
    mu = inexact(mu)
    mu = jnp.broadcast_to(mu, jnp.broadcast_shapes(jnp.shape(mu), jnp.shape(loc)))
    small = (mu > 0) & (mu < _SUMMED_BELOW)
    m = jnp.where(small, mu, 1.0)[..., None]
    k = jnp.arange(_TERMS, dtype=mu.dtype)
    log_p = xlogy(k, m) - m - gammaln(k + 1.0)
    summed = -jnp.sum(jnp.exp(log_p) * log_p, axis=-1)
    big = jnp.where(small, _SUMMED_BELOW, mu)
    inverse = 1.0 / big
    series = (0.5 * jnp.log(2 * math.pi * math.e * big)
              - inverse * (1 / 12 + inverse * (1 / 24 + inverse * (19 / 360 + inverse * 3 / 80))))
    return jnp.where(mu <= 0, jnp.nan, jnp.where(small, summed, series))
