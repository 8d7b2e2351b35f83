"""Exponential and trigonometric integrals: expi, exp1, expn and sici.

Each is a power series near zero and a continued fraction (or an asymptotic series) away from it,
evaluated with the modified Lentz method (as in Numerical Recipes' expint, ei and cisi), all
elements at once in a while loop until every element has converged. Derivatives are their
closed forms (`with_jvp`), not the iterations'.
"""
import math

import numpy as np

import astjax.numpy as jnp
from astjax import lax

from ..control import while_loop
from ..core.library_rules import with_jvp
from ._util import inexact

_EULER = 0.5772156649015329


def _eps(x):
    return float(np.finfo(jnp.asarray(x).dtype).eps)


def _iterate(step, state, enabled, limit=1000):
    """Run step(k, state) -> (state, still going) from k = 1 while any element goes on."""
    def more(carry):
        return (carry[0] <= limit) & jnp.any(carry[1])

    def body(carry):
        k, going, state = carry
        new, again = step(k, state)
        state = tuple(jnp.where(going, n, o) for n, o in zip(new, state))
        return k + 1, going & again, state

    return while_loop(more, body, (np.int32(1), enabled, state))[2]


# ---------------------------------------------------------------- E_n
def _expn_fraction(n, x, enabled):
    """E_n(x) e^x for x > 1, by the continued fraction of E_n."""
    eps, big = _eps(x), 1 / float(np.finfo(jnp.asarray(x).dtype).tiny) ** 0.5
    b = x + n

    def step(k, state):
        b, c, d, h = state
        an = -k * (n - 1 + k)
        b = b + 2
        d = 1 / (an * d + b)
        c = b + an / c
        delta = c * d
        return (b, c, d, h * delta), jnp.abs(delta - 1) >= eps

    safe_b = jnp.where(enabled, b, 1.0)
    start = (safe_b, jnp.full_like(x, big), 1 / safe_b, 1 / safe_b)
    return _iterate(step, start, enabled)[3]


def _expn_series(n, x, enabled):
    """E_n(x) for 0 < x <= 1 by its power series (the digamma term where k = n - 1)."""
    eps = _eps(x)
    safe_x = jnp.where(enabled, x, 0.5)
    log_x = jnp.log(safe_x)
    nm1 = n - 1
    first = jnp.where(nm1 != 0, 1 / jnp.where(nm1 != 0, nm1, 1.0), -log_x - _EULER)
    psi = lax.digamma(jnp.maximum(n, 1.0))

    def step(k, state):
        fact, total = state
        kf = k.astype(x.dtype)
        fact = fact * -safe_x / kf
        delta = jnp.where(kf != nm1, -fact / jnp.where(kf != nm1, kf - nm1, 1.0),
                          fact * (-log_x + psi))
        total = total + delta
        return (fact, total), jnp.abs(delta) >= jnp.abs(total) * eps

    return _iterate(step, (jnp.ones_like(x), first), enabled)[1]


def _expn_value(n, x):
    ok = (n >= 0) & (x >= 0) & (n == jnp.floor(n))
    use_fraction = x > 1
    inner = ok & (x > 0) & (n > 0)
    fraction = _expn_fraction(n, jnp.where(inner & use_fraction, x, 2.0), inner & use_fraction)
    series = _expn_series(n, x, inner & ~use_fraction)
    out = jnp.where(use_fraction, fraction * jnp.exp(-x), series)
    safe_x = jnp.where(x > 0, x, 1.0)
    out = jnp.where(n == 0, jnp.exp(-safe_x) / safe_x, out)
    at_zero = jnp.where(n > 1, 1 / jnp.where(n > 1, n - 1, 1.0), np.inf)
    out = jnp.where(x == 0, at_zero, out)
    out = jnp.where(x == np.inf, 0.0, out)
    return jnp.where(ok, out, np.nan)


def _expn_jvp(primals, tangents):
    n, x = primals
    _, tx = tangents
    return expn(n, x), -expn(n - 1, x) * tx


def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf e^(-xt) / t^n dt (integer n)."""
    n, x = inexact(n, x)
    shape = jnp.broadcast_shapes(n.shape, x.shape)
    n, x = jnp.broadcast_to(n, shape), jnp.broadcast_to(x, shape)
    return with_jvp("expn", _expn_value, _expn_jvp, n, x)


def exp1(x):
    """E_1(x) = int_x^inf e^-t / t dt (nan for x < 0, as SciPy's real exp1)."""
    x = inexact(x)
    return expn(jnp.ones_like(x), x)


# ---------------------------------------------------------------- Ei
def _ei_positive(x, enabled):
    """Ei(x) for x > 0: its power series up to -log(eps), its asymptotic series beyond."""
    eps = _eps(x)
    threshold = -math.log(eps)
    use_series = x <= threshold
    safe_x = jnp.where(enabled, x, 1.0)

    def series_step(k, state):
        fact, total = state
        kf = k.astype(x.dtype)
        fact = fact * safe_x / kf
        term = fact / kf
        return (fact, total + term), term >= eps * total

    _, series = _iterate(series_step, (jnp.ones_like(x), jnp.zeros_like(x)),
                         enabled & use_series)

    def asymptotic_step(k, state):
        term, total = state
        new = term * k.astype(x.dtype) / safe_x
        shrinking = new < term
        return (new, jnp.where(shrinking, total + new, total)), shrinking & (new >= eps * total)

    _, asymptotic = _iterate(asymptotic_step, (jnp.ones_like(x), jnp.ones_like(x)),
                             enabled & ~use_series)
    return jnp.where(use_series, series + jnp.log(safe_x) + _EULER,
                     jnp.exp(safe_x) * asymptotic / safe_x)


def _expi_value(x):
    positive = x > 0
    ei = _ei_positive(x, positive)
    e1 = expn(jnp.ones_like(x), jnp.where(positive, 1.0, -x))
    out = jnp.where(positive, ei, -e1)
    out = jnp.where(x == 0, -np.inf, jnp.where(x == np.inf, np.inf, out))
    return jnp.where(jnp.isnan(x), np.nan, out)


def _expi_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return expi(x), jnp.exp(x) / x * t


def expi(x):
    """The exponential integral Ei(x) = -PV int_-x^inf e^-t / t dt."""
    return with_jvp("expi", _expi_value, _expi_jvp, inexact(x))


# ---------------------------------------------------------------- Si and Ci
_SI = [(-1) ** k / ((2 * k + 1) * math.factorial(2 * k + 1)) for k in range(18)][::-1]
_CI = [(-1) ** k / ((2 * k) * math.factorial(2 * k)) for k in range(1, 18)][::-1] + [0.0]


def _sici_series(t):
    t2 = t * t
    si = t * jnp.polyval(jnp.asarray(_SI, t.dtype), t2)
    safe_t = jnp.where(t > 0, t, 1.0)
    ci = _EULER + jnp.log(safe_t) + jnp.polyval(jnp.asarray(_CI, t.dtype), t2)
    return si, jnp.where(t > 0, ci, -np.inf)


def _sici_fraction(t, enabled):
    """(Si, Ci) for t > 2 from the continued fraction of E_1(it)."""
    eps = _eps(t)
    big = 1 / float(np.finfo(t.dtype).tiny) ** 0.5
    complex_dtype = np.complex64 if t.dtype == np.float32 else np.complex128
    b = (1 + 1j * t).astype(complex_dtype)

    def step(k, state):
        b, c, d, h = state
        a = -(k.astype(t.dtype) ** 2)  # (NR's i = k + 1)
        b = b + 2
        d = 1 / (a * d + b)
        c = b + a / c
        delta = c * d
        return (b, c, d, h * delta), jnp.abs(delta - 1) >= eps

    start = (b, jnp.full_like(b, big), 1 / b, 1 / b)
    h = _iterate(step, start, enabled)[3]
    h = (jnp.cos(t) - 1j * jnp.sin(t)) * h
    return math.pi / 2 + jnp.imag(h), -jnp.real(h)


def _sici_value(x):
    t = jnp.abs(x)
    small = t <= 2
    si_small, ci_small = _sici_series(jnp.where(small, t, 0.0))
    si_large, ci_large = _sici_fraction(jnp.where(small, 3.0, t), ~small & jnp.isfinite(t))
    si = jnp.where(small, si_small, si_large)
    ci = jnp.where(small, ci_small, ci_large)
    si = jnp.where(t == np.inf, math.pi / 2, si)
    ci = jnp.where(t == np.inf, 0.0, ci)
    return jnp.sign(x) * si, ci


def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    safe = jnp.where(x != 0, x, 1.0)
    return sici(x), (jnp.where(x != 0, jnp.sin(safe) / safe, 1.0) * t, jnp.cos(x) / x * t)


def sici(x):
    """(Si(x), Ci(x)): the sine and cosine integrals (Ci of |x| for x < 0, as SciPy's real
    sici)."""
    x = inexact(x)
    if x.dtype.kind == "c":
        raise TypeError("sici: complex arguments are not supported")
    return with_jvp("sici", _sici_value, _sici_jvp, x)
