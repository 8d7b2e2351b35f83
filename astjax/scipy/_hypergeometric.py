"""The confluent (1F1) and Gauss (2F1) hypergeometric functions, for real arguments.

Both sum their power series, all elements at once in a while loop, until each term is below
eps of the sum; 1F1 of negative x takes Kummer's transformation exp(x) 1F1(b - a, b, -x) and
2F1 of negative x Pfaff's (1 - x)^-a 2F1(a, c - b, c, x / (x - 1)), so the series that run are
the ones without cancellation. They differentiate through the iteration, in every argument.
"""
import numpy as np

import astjax.numpy as jnp
from astjax import lax

from ..control import while_loop
from ._util import inexact


def _series(ratio, shape, dtype, enabled, limit):
    """sum_k t_k with t_0 = 1 and t_(k+1) = t_k ratio(k), until |t_k| <= eps |sum|."""
    eps = float(np.finfo(dtype).eps)

    def more(state):
        return (state[0] < limit) & jnp.any(state[1])

    def step(state):
        k, going, term, total = state
        term_next = term * ratio(k.astype(dtype))
        total_next = total + term_next
        still = going & (jnp.abs(term_next) > eps * jnp.abs(total_next))
        return (k + 1, still, jnp.where(going, term_next, term),
                jnp.where(going, total_next, total))

    one = jnp.ones(shape, dtype)
    return while_loop(more, step, (np.int32(0), enabled, one, one))[3]


def _broadcast(*xs):
    xs = inexact(*xs)
    shape = jnp.broadcast_shapes(*[x.shape for x in xs])
    return [jnp.broadcast_to(x, shape) for x in xs]


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x)."""
    a, b, x = _broadcast(a, b, x)
    negative = x < 0
    p = jnp.where(negative, b - a, a)
    y = jnp.abs(x)
    bad = (b <= 0) & (b == jnp.floor(b))
    total = _series(lambda k: (p + k) * y / ((b + k) * (k + 1)), x.shape, x.dtype,
                    ~bad & (x != 0), 100_000)
    out = jnp.where(negative, jnp.exp(x) * total, total)
    return jnp.where(bad, np.inf, jnp.where(x == 0, 1.0, out))


def _gauss_series(a, b, c, x, enabled):
    return _series(lambda k: (a + k) * (b + k) * x / ((c + k) * (k + 1)), x.shape, x.dtype,
                   enabled, 100_000)


def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function 2F1(a, b; c; x) for real x <= 1 (inf beyond, as JAX)."""
    a, b, c, x = _broadcast(a, b, c, x)
    negative = x < 0
    safe_x = jnp.where(x < 1, x, 0.0)
    y = jnp.where(negative, safe_x / (safe_x - 1), safe_x)
    q = jnp.where(negative, c - b, b)
    pole = (c <= 0) & (c == jnp.floor(c))
    total = _gauss_series(a, q, c, y, ~pole & (x < 1) & (x != 0))
    out = jnp.where(negative, (1 - safe_x) ** -a * total, total)
    d = c - a - b
    at_one = jnp.where(d > 0, jnp.exp(lax.lgamma(c) + lax.lgamma(jnp.where(d > 0, d, 1.0))
                                      - lax.lgamma(c - a) - lax.lgamma(c - b)), np.inf)
    at_one = at_one * _gamma_signs(c, d, c - a, c - b)
    out = jnp.where(x == 1, at_one, jnp.where(x > 1, np.inf, out))
    trivial = (x == 0) | (((a == 0) | (b == 0)) & ~pole)
    return jnp.where(trivial, 1.0, jnp.where(pole, np.inf, out))


def _gamma_sign(x):
    """The sign of Gamma(x) for x not a pole: negative where -x is in (2k, 2k + 1)."""
    return jnp.where((x > 0) | (jnp.ceil(-x) % 2 == 0), 1.0, -1.0)


def _gamma_signs(*args):
    """The sign of Gamma(args[0]) Gamma(args[1]) / (Gamma(args[2]) Gamma(args[3]))."""
    return _gamma_sign(args[0]) * _gamma_sign(args[1]) * _gamma_sign(args[2]) * _gamma_sign(args[3])
