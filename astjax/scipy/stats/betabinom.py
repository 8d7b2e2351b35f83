"""The beta-binomial distribution (jax.scipy.stats.betabinom)."""
import astjax.numpy as jnp
from astjax.scipy.special import betaln, gammaln

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, n, a, b, loc=0):
    y = shifted(k, loc)
    n, a, b = inexact(n, a, b)
    safe = jnp.clip(y, 0.0, n)
    log_comb = gammaln(n + 1.0) - gammaln(safe + 1.0) - gammaln(n - safe + 1.0)
    return on_counts(y, log_comb + betaln(safe + a, n - safe + b) - betaln(a, b), upper=n)


def pmf(k, n, a, b, loc=0):
    return jnp.exp(logpmf(k, n, a, b, loc))
