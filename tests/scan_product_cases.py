"""Scans whose matrix products need no carry: test_scan_products.py checks that they move out
of the loop (rewriters/loops.py) and that the results stay those of the loop."""
import astjax.numpy as jnp
from astjax import lax


def projected(w, xs):
    """x @ w reads only the step's slice and a constant: one product before the loop."""
    def step(h, x):
        h = jnp.tanh(0.5 * h + x @ w)
        return h, h[0]

    h, ys = lax.scan(step, jnp.zeros((xs.shape[1], w.shape[1])), xs)
    return h, ys


def batched_projection(w, xs):
    """A product with a batch axis (one matrix per row), read through a transpose."""
    def step(h, x):
        h = jnp.sin(h + jnp.einsum("bkn,bnm->bkm", x, w).transpose((0, 2, 1)))
        return h, None

    h, _ = lax.scan(step, jnp.zeros((xs.shape[1], w.shape[2], xs.shape[2])), xs)
    return h


def accumulated(a, xs):
    """c + x.T @ h, with h carried: both operands vary, so the loop stacks h and the product
    over every step follows it."""
    def step(carry, x):
        h, c = carry
        h = jnp.tanh(h @ a + x[:, :1])
        return (h, c + x.T @ h), jnp.sum(h)

    init = (jnp.zeros((xs.shape[1], a.shape[0])), jnp.ones((xs.shape[2], a.shape[0])))
    (h, c), ys = lax.scan(step, init, xs)
    return h, c, ys


def accumulated_einsums(a, v, xs):
    """Two accumulators, one an einsum of three operands (v the same every step), one a
    product with a constant (its steps summed first), in a scan that runs backwards."""
    def step(carry, x):
        h, c, d = carry
        h = jnp.cos(h @ a) + x
        c = c + jnp.einsum("bn,bm,m->nm", x, h, v)
        d = d + h @ a
        return (h, c, d), None

    b, n = xs.shape[1], xs.shape[2]
    init = (jnp.zeros((b, n)), jnp.zeros((n, n)), jnp.full((b, n), 2.0))
    (h, c, d), _ = lax.scan(step, init, xs, reverse=True)
    return h, c, d


def accumulator_read_in_the_body(a, xs):
    """c is read by the step besides its update: it stays a carry."""
    def step(carry, x):
        h, c = carry
        h = jnp.tanh(h @ a + x[:, :1] + jnp.sum(c))
        return (h, c + x.T @ h), None

    init = (jnp.zeros((xs.shape[1], a.shape[0])), jnp.zeros((xs.shape[2], a.shape[0])))
    (h, c), _ = lax.scan(step, init, xs)
    return h, c


def nested(w, xss):
    """The inner scan's projection moves out of the inner loop (to the outer step)."""
    def outer(g, xs):
        def inner(h, x):
            h = jnp.tanh(h + x @ w)
            return h, None

        h, _ = lax.scan(inner, g, xs)
        return g + h, None

    g, _ = lax.scan(outer, jnp.zeros((xss.shape[2], w.shape[1])), xss)
    return g
