"""Mapped functions whose collectives cross processes when pmap runs under MPI."""
import astjax
import astjax.numpy as jnp
from astjax import lax


def grow_until_large(x):
    """A while loop whose condition reads a sum over every example (so, every process)."""
    while lax.psum(jnp.sum(x * x), "i") < 1000.0:
        x = x * 1.5
    return x


def extremum_loss(x):
    return jnp.sum(lax.pmax(x, "i") * x) + jnp.sum(lax.pmin(x * x, "i"))


def mean_loss(w, x):
    """Data-parallel: each example's loss averaged over every example of every process."""
    return lax.pmean(jnp.sum(jnp.tanh(x * w) ** 2), "i")


def grad_mean_loss(w, x):
    return astjax.grad(mean_loss)(w, x)
