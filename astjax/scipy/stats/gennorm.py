"""The generalized normal distribution (jax.scipy.stats.gennorm): densities."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import gammaln

from ._util import inexact, from_log


def logpdf(x, beta):
    x, beta = inexact(x, beta)
    return jnp.log(beta) - math.log(2.0) - gammaln(1.0 / beta) - jnp.abs(x) ** beta


pdf = from_log(logpdf)
