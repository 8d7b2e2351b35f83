"""A line search for the strong Wolfe conditions (Nocedal and Wright, Algorithms 3.5 and 3.6):
step lengths grow until they bracket an acceptable one, then the bracket shrinks (by the
minimiser of the cubic through its ends, safeguarded by bisection) until a step satisfies
both conditions. One while loop runs both phases, one function evaluation per iteration."""
from typing import NamedTuple

import numpy as np

import astjax.numpy as jnp

from ...control import while_loop

_C1, _C2 = 1e-4, 0.9  # sufficient decrease and curvature constants, as SciPy and JAX


class LineSearchResults(NamedTuple):
    failed: object  # no acceptable step within maxiter
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object     # the step length
    f_k: object     # the value and gradient at x + a_k p
    g_k: object
    status: object  # 0 found, 1 no bracket or zoom did not converge


class _State(NamedTuple):
    i: object
    zooming: object
    done: object
    a_lo: object
    f_lo: object
    d_lo: object
    a_hi: object
    f_hi: object
    d_hi: object
    a_prev: object
    f_prev: object
    d_prev: object
    a_next: object
    a_star: object
    f_star: object
    g_star: object


def _cubic_minimiser(a, fa, da, b, fb, db):
    """The minimiser of the cubic through (a, fa, da) and (b, fb, db); NaN if it has none."""
    gap = jnp.where(a == b, 1.0, a - b)
    d1 = da + db - 3 * (fa - fb) / gap
    d2 = jnp.sign(b - a) * jnp.sqrt(jnp.maximum(d1 * d1 - da * db, 0.0))
    denominator = db - da + 2 * d2
    return b - (b - a) * (db + d2 - d1) / jnp.where(denominator == 0, np.nan, denominator)


def _zoom_trial(s):
    """The next trial step inside the bracket: the cubic's minimiser if it lies well inside,
    else the midpoint."""
    low, high = jnp.minimum(s.a_lo, s.a_hi), jnp.maximum(s.a_lo, s.a_hi)
    width = high - low
    cubic = _cubic_minimiser(s.a_lo, s.f_lo, s.d_lo, s.a_hi, s.f_hi, s.d_hi)
    inside = (cubic > low + 0.1 * width) & (cubic < high - 0.1 * width)
    return jnp.where(inside, cubic, 0.5 * (low + high))


def line_search(value_and_grad, xk, pk, old_fval=None, old_old_fval=None, gfk=None,
                c1=_C1, c2=_C2, maxiter=20):
    """A step a along pk from xk satisfying the strong Wolfe conditions. value_and_grad maps x
    to (f(x), grad f(x))."""
    xk, pk = jnp.asarray(xk), jnp.asarray(pk)
    if old_fval is None or gfk is None:
        old_fval, gfk = value_and_grad(xk)
    dtype = jnp.result_type(xk, 1.0)
    phi0 = jnp.asarray(old_fval, dtype)
    dphi0 = jnp.dot(gfk, pk)
    if old_old_fval is None:
        start = jnp.asarray(1.0, dtype)
    else:  # SciPy's guess from the last decrease, at most a unit step
        guess = 1.01 * 2 * (phi0 - old_old_fval) / dphi0
        start = jnp.where((guess > 0) & jnp.isfinite(guess), jnp.minimum(1.0, guess), 1.0)
    zero = jnp.zeros((), dtype)
    state = _State(i=np.int32(0), zooming=np.bool_(False), done=np.bool_(False),
                   a_lo=zero, f_lo=phi0, d_lo=dphi0, a_hi=zero, f_hi=phi0, d_hi=dphi0,
                   a_prev=zero, f_prev=phi0, d_prev=dphi0, a_next=start.astype(dtype),
                   a_star=zero, f_star=phi0, g_star=jnp.asarray(gfk, dtype))

    def more(s):
        return (~s.done) & (s.i < maxiter)

    def step(s):
        a = jnp.where(s.zooming, _zoom_trial(s), s.a_next)
        f, g = value_and_grad(xk + a * pk)
        f = jnp.asarray(f, dtype)
        d = jnp.dot(g, pk)
        armijo = f <= phi0 + c1 * a * dphi0
        curvature = jnp.abs(d) <= -c2 * dphi0
        # bracketing: too high (or higher than before) brackets (prev, a); a rising slope
        # brackets (a, prev); otherwise the step doubles
        high = (~armijo) | ((s.i > 0) & (f >= s.f_prev))
        rising = d >= 0
        # zooming: too high replaces hi; else a becomes lo (and hi flips if the slope says so)
        zoom_high = (~armijo) | (f >= s.f_lo)
        accept = jnp.where(s.zooming, (~zoom_high) & curvature, (~high) & curvature)
        flip = s.zooming & ~zoom_high & (d * (s.a_hi - s.a_lo) >= 0)
        new_lo = jnp.where(s.zooming, ~zoom_high, rising & ~high)
        new_hi = jnp.where(s.zooming, zoom_high, high)
        bracketed_at_prev = ~s.zooming & high
        a_lo = jnp.where(new_lo, a, jnp.where(bracketed_at_prev, s.a_prev, s.a_lo))
        f_lo = jnp.where(new_lo, f, jnp.where(bracketed_at_prev, s.f_prev, s.f_lo))
        d_lo = jnp.where(new_lo, d, jnp.where(bracketed_at_prev, s.d_prev, s.d_lo))
        hi_from_prev = ~s.zooming & rising & ~high  # bracket (a, prev)
        a_hi = jnp.where(new_hi, a, jnp.where(flip, s.a_lo, jnp.where(hi_from_prev, s.a_prev, s.a_hi)))
        f_hi = jnp.where(new_hi, f, jnp.where(flip, s.f_lo, jnp.where(hi_from_prev, s.f_prev, s.f_hi)))
        d_hi = jnp.where(new_hi, d, jnp.where(flip, s.d_lo, jnp.where(hi_from_prev, s.d_prev, s.d_hi)))
        zooming = s.zooming | high | rising
        return _State(i=s.i + 1, zooming=zooming, done=accept, a_lo=a_lo, f_lo=f_lo, d_lo=d_lo,
                      a_hi=a_hi, f_hi=f_hi, d_hi=d_hi, a_prev=a, f_prev=f, d_prev=d,
                      a_next=2 * a, a_star=jnp.where(accept, a, s.a_star),
                      f_star=jnp.where(accept, f, s.f_star),
                      g_star=jnp.where(accept, g, s.g_star))

    s = while_loop(more, step, state)
    failed = ~s.done
    return LineSearchResults(failed=failed, nit=s.i, nfev=s.i, ngev=s.i, k=s.i,
                             a_k=s.a_star, f_k=s.f_star, g_k=s.g_star,
                             status=jnp.where(failed, 1, 0))
