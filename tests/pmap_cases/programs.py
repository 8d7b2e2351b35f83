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


def looped(x):
    """A data-dependent while loop (taped when differentiated) before a collective."""
    y = x
    while jnp.sum(y * y) < 20.0:  # 40 to 100 trips: past the XLA tape's first 64 rows
        y = y * 1.03 + 0.01 * jnp.sin(y)
    astjax.debug.print("replica done")
    return jnp.sum(lax.psum(y, "i") * y)


def nested_pmap(x):
    """A pmap inside a pmap: the inner one maps within each outer example (device)."""
    def inner(v):
        return (lax.psum(v, "j") * 10 + lax.psum(v, "i") + lax.axis_index("i") * 100
                + lax.axis_index("j") * 1000)
    return astjax.pmap(inner, axis_name="j")(x)


GROUPS = [[0, 2], [1, 3]]  # of an axis of 4: each group spans both halves (and both MPI ranks)


def grouped(x):
    return (lax.psum(x, "i", axis_index_groups=GROUPS),
            lax.pmean(x * x, "i", axis_index_groups=GROUPS),
            lax.pmax(x, "i", axis_index_groups=GROUPS), lax.pmin(x, "i", axis_index_groups=GROUPS),
            lax.all_gather(x, "i", axis_index_groups=GROUPS),
            lax.all_gather(x[None, :], "i", axis_index_groups=GROUPS, axis=1, tiled=True),
            lax.psum(1, "i", axis_index_groups=GROUPS))


def grouped_loss(x):
    return (jnp.sum(lax.psum(x ** 2, "i", axis_index_groups=GROUPS) * jnp.sin(x))
            + jnp.sum(lax.pmax(x, "i", axis_index_groups=GROUPS) * x)
            + jnp.sum(jnp.tanh(lax.all_gather(x, "i", axis_index_groups=GROUPS)) * x[None, :]))


def bad_groups(x):
    return lax.psum(x, "i", axis_index_groups=[[0, 1], [2]])
