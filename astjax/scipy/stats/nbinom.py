"""The negative binomial distribution (jax.scipy.stats.nbinom)."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlog1py

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, n, p, loc=0):
    y = shifted(k, loc)
    n, p = inexact(n, p)
    safe = jnp.maximum(y, 0.0)
    log_comb = gammaln(n + safe) - gammaln(safe + 1.0) - gammaln(n)
    return on_counts(y, log_comb + n * jnp.log(p) + xlog1py(safe, -p))


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
