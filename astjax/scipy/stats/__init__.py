"""astjax.scipy.stats: distributions as jax.scipy.stats has them (`norm.logpdf(x, loc,
scale)`, ...), each a composition of primitives, and `sem`, `mode` and `rankdata`."""
import astjax.numpy as jnp

from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon,  # noqa: F401
               gamma, gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial,
               multivariate_normal, nbinom, norm, pareto, poisson, t, truncnorm, uniform,
               vonmises, wrapcauchy)
from ._ranks import ModeResult, mode, rankdata  # noqa: F401
from ._util import inexact


def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean: std(a, ddof) / sqrt(count) along axis."""
    if nan_policy != "propagate":
        raise NotImplementedError("sem(nan_policy=...) other than 'propagate'")
    a = inexact(a)
    count = a.size if axis is None else a.shape[axis]
    return jnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count)
