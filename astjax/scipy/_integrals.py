"""Two special functions defined as integrals: Spence's function (the dilogarithm) and Owen's T.

spence(x) = Li2(1 - x) reduces, by the inversion x -> 1/x and the reflection x -> 1 - x, to
Li2(v) with |v| <= 1/2, summed as its series in w = -log(1 - v) with Bernoulli coefficients
(terms fall as (w / 2 pi)^n: 20 terms are exact in float64). Owen's T is Gauss-Legendre
quadrature of its defining integral over [0, a] with |a| <= 1 (larger |a| by the reciprocal
identity), with its closed-form derivatives.
"""
import math

import numpy as np

import astjax.numpy as jnp
from astjax import lax

from ..core.library_rules import with_jvp
from ..lax.special import _bernoulli_numbers
from ._util import inexact

# B_n / (n + 1)!, the coefficients of w^(n+1) in Li2 = sum_n B_n w^(n+1) / (n + 1)!
_LI2 = [float(b / math.factorial(n + 1)) for n, b in enumerate(_bernoulli_numbers(28))]
_PI2_6 = math.pi ** 2 / 6


def _li2_small(w):
    """Li2(v) for w = -log(1 - v), |v| <= 1/2."""
    return w * jnp.polyval(jnp.asarray(_LI2[::-1], w.dtype), w)


def _spence_unit(x):
    """spence(x) for 0 < x <= 2 (the reflection below 1/2)."""
    reflect = x < 0.5
    near = jnp.where(reflect, 1.0, x)
    far = jnp.where(reflect, x, 0.25)
    direct = _li2_small(-jnp.log(near))  # v = 1 - x, so w = -log(x)
    reflected = _PI2_6 - jnp.log(far) * jnp.log1p(-far) - _li2_small(-jnp.log1p(-far))
    return jnp.where(reflect, reflected, direct)


def _spence_value(x):
    invert = x > 1.5
    safe = jnp.where(x > 0, x, 1.0)
    inner = _spence_unit(jnp.where(invert, 1 / safe, safe))
    log_x = jnp.log(safe)
    out = jnp.where(invert, -0.5 * log_x * log_x - inner, inner)
    out = jnp.where(x == 0, _PI2_6, jnp.where(x == np.inf, -np.inf, out))
    return jnp.where((x < 0) | jnp.isnan(x), np.nan, out)


def _spence_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    one = x == 1
    safe = jnp.where(one | (x <= 0), 2.0, x)
    slope = jnp.where(one, -1.0, jnp.log(safe) / (1 - safe))
    return spence(x), slope * t


def spence(x):
    """Spence's function int_1^x log(t) / (1 - t) dt = Li2(1 - x), for x >= 0."""
    x = inexact(x)
    if x.dtype.kind == "c":
        raise TypeError("spence: complex arguments are not supported")
    return with_jvp("spence", _spence_value, _spence_jvp, x)


# ---------------------------------------------------------------- Owen's T
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(48)
_NODES, _WEIGHTS = (_NODES + 1) / 2, _WEIGHTS / 2  # on [0, 1]


def _owens_t_quadrature(h, a):
    """(1 / 2 pi) int_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du for 0 <= a <= 1."""
    u2 = (a[..., None] * _NODES.astype(a.dtype)) ** 2
    integrand = jnp.exp(-0.5 * (h * h)[..., None] * (1 + u2)) / (1 + u2)
    return a * jnp.sum(integrand * _WEIGHTS.astype(a.dtype), axis=-1) / (2 * math.pi)


def _owens_t_value(h, a):
    h, abs_a = jnp.abs(h), jnp.abs(a)
    wide = abs_a > 1
    safe_a = jnp.where(wide, abs_a, 1.0)
    inner_a = jnp.where(wide, 1 / safe_a, abs_a)
    inner_h = jnp.where(wide, abs_a * h, h)
    t = _owens_t_quadrature(jnp.where(jnp.isfinite(inner_h), inner_h, 0.0), inner_a)
    t = jnp.where(jnp.isfinite(inner_h), t, 0.0)
    # T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - T(ah, 1/a) for h >= 0, a > 1, with the
    # upper tails Q = 1 - Phi in the form that keeps their digits
    q_h = 0.5 * lax.erfc(h / math.sqrt(2))
    q_ah = 0.5 * lax.erfc(abs_a * h / math.sqrt(2))
    reciprocal = 0.5 * (q_h + q_ah) - q_h * q_ah - t
    out = jnp.sign(a) * jnp.where(wide, reciprocal, t)
    return jnp.where(jnp.isnan(h) | jnp.isnan(a), np.nan, out)


def _owens_t_jvp(primals, tangents):
    h, a = primals
    th, ta = tangents
    d_h = -jnp.exp(-0.5 * h * h) * lax.erf(a * h / math.sqrt(2)) / (2 * math.sqrt(2 * math.pi))
    d_a = jnp.exp(-0.5 * (1 + a * a) * h * h) / (2 * math.pi * (1 + a * a))
    return owens_t(h, a), d_h * th + d_a * ta


def owens_t(h, a):
    """Owen's T function, the bivariate normal probability over a wedge."""
    h, a = inexact(h, a)
    shape = jnp.broadcast_shapes(h.shape, a.shape)
    return with_jvp("owens_t", _owens_t_value, _owens_t_jvp,
                    jnp.broadcast_to(h, shape), jnp.broadcast_to(a, shape))
