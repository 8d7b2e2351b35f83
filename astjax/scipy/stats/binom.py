"""The binomial distribution (jax.scipy.stats.binom)."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlog1py, xlogy

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, n, p, loc=0):
    y = shifted(k, loc)
    n, p = inexact(n, p)
    safe = jnp.clip(y, 0.0, n)
    log_comb = gammaln(n + 1.0) - gammaln(safe + 1.0) - gammaln(n - safe + 1.0)
    return on_counts(y, log_comb + xlogy(safe, p) + xlog1py(n - safe, -p), upper=n)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
