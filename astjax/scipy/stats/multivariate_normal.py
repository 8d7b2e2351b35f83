"""The multivariate normal distribution (jax.scipy.stats.multivariate_normal), through a
Cholesky factor of the covariance; x's last axis is the event axis."""
import math

import astjax.numpy as jnp
from astjax.scipy.linalg import solve_triangular

from ._util import inexact


def logpdf(x, mean, cov, allow_singular=None):
    if allow_singular:
        raise NotImplementedError("multivariate_normal.logpdf(allow_singular=True)")
    x, mean, cov = inexact(x, mean, cov)
    if mean.ndim == 0:  # (one variable: the normal density of each element, as JAX)
        return -0.5 * jnp.square(x - mean) / cov - 0.5 * (math.log(2 * math.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if cov.ndim < 2:  # a scalar variance or a diagonal
        variance = jnp.broadcast_to(cov, (n,))
        y2 = jnp.sum((x - mean) ** 2 / variance, axis=-1)
        return -0.5 * (y2 + jnp.sum(jnp.log(variance)) + n * math.log(2 * math.pi))
    if cov.ndim > 2:
        raise NotImplementedError("multivariate_normal.logpdf with a batch of covariances")
    factor = jnp.linalg.cholesky(cov)
    centred = x - mean
    batch = centred.shape[:-1]
    columns = centred.reshape((-1, n)).T  # every point a column: one triangular solve
    y = solve_triangular(factor, columns, lower=True)
    half_log_det = jnp.sum(jnp.log(jnp.diagonal(factor)))
    squares = jnp.sum(y * y, axis=0).reshape(batch)
    return -0.5 * squares - half_log_det - 0.5 * n * math.log(2 * math.pi)


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
