"""The geometric distribution on 1, 2, ... (jax.scipy.stats.geom)."""
import astjax.numpy as jnp
from astjax.scipy.special import xlog1py

from ._discrete import on_counts, shifted
from ._util import inexact


def logpmf(k, p, loc=0):
    y, p = shifted(k, loc), inexact(p)
    safe = jnp.maximum(y, 1.0)
    return on_counts(y - 1.0, xlog1py(safe - 1.0, -p) + jnp.log(p))


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
