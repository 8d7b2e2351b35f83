"""Mapped functions with collectives, for the pmap and named-vmap tests."""
import astjax
import astjax.numpy as jnp
from astjax import lax


def collectives(x):
    return (lax.psum(x, "i"), lax.pmean(x * x, "i"), lax.pmax(x, "i"), lax.pmin(x, "i"),
            lax.all_gather(x, "i"), lax.all_gather(x[None, :], "i", axis=1, tiled=True),
            lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)]), lax.axis_index("i"),
            lax.psum(1, "i"))


def coupled_loss(x):
    return jnp.sum(lax.psum(x ** 2, "i") * jnp.sin(x))


def gathered_loss(x):
    everyone = lax.all_gather(x, "i")
    return jnp.sum(jnp.tanh(everyone) * x[None, :]) + jnp.sum(lax.ppermute(x, "i", [(0, 1), (1, 0)]) ** 2)


def with_branch(x):
    total = lax.psum(jnp.sum(x), "i")
    if total > 0:
        y = x * total
    else:
        y = -x
    return y


def nested(x):
    inner = astjax.vmap(lambda row: row - lax.pmean(row, "j"), axis_name="j")(x)
    return lax.psum(inner, "i")


def unbound(x):
    return lax.psum(x, "k")
