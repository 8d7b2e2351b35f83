"""The generalized normal distribution (jax.scipy.stats.gennorm): densities and the CDF."""
import math

import astjax.numpy as jnp
from astjax.scipy.special import gammainc, gammaln

from ._util import inexact, from_log


def logpdf(x, beta):
    x, beta = inexact(x, beta)
    return jnp.log(beta) - math.log(2.0) - gammaln(1.0 / beta) - jnp.abs(x) ** beta


pdf = from_log(logpdf)


def cdf(x, beta):
    x, beta = inexact(x, beta)
    return 0.5 + 0.5 * jnp.sign(x) * gammainc(1.0 / beta, jnp.abs(x) ** beta)
