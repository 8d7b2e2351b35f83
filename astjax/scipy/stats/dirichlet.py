"""The Dirichlet distribution (jax.scipy.stats.dirichlet): x's first axis is the simplex."""
import astjax.numpy as jnp
from astjax.scipy.special import gammaln, xlogy

from ._util import inexact


def logpdf(x, alpha):
    x, alpha = inexact(x, alpha)
    if x.shape[0] != alpha.shape[0]:
        raise ValueError(f"dirichlet.logpdf: x's first axis ({x.shape[0]}) must match alpha "
                         f"({alpha.shape[0]})")
    shaped = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    normaliser = jnp.sum(gammaln(alpha)) - gammaln(jnp.sum(alpha))
    value = jnp.sum(xlogy(shaped - 1.0, x), axis=0) - normaliser
    on_simplex = jnp.all(x >= 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1.0) < 1e-6)
    return jnp.where(on_simplex, value, -jnp.inf)


def pdf(x, alpha):
    return jnp.exp(logpdf(x, alpha))
