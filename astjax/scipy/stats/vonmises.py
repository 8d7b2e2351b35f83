"""The von Mises distribution (jax.scipy.stats.vonmises): densities on the circle."""
import math

import astjax.numpy as jnp
from astjax import lax

from ._util import from_log, inexact


def logpdf(x, kappa):
    """kappa (cos x - 1) - log(2 pi i0e(kappa)); nan for kappa <= 0, as JAX."""
    x, kappa = inexact(x, kappa)
    value = kappa * (jnp.cos(x) - 1) - jnp.log(2 * math.pi * lax.bessel_i0e(kappa))
    return jnp.where(kappa > 0, value, jnp.nan)


pdf = from_log(logpdf)
