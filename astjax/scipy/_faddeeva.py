"""The Faddeeva function w(z) = exp(-z^2) erfc(-iz) and what is built on it: erfcx, Dawson's
integral and the Fresnel integrals.

w is Weideman's rational expansion (SIAM J. Numer. Anal. 31, 1994): in the upper half-plane
w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)) with Z = (L + iz) / (L - iz) and p a
polynomial of degree N - 1 whose coefficients are the Fourier coefficients of a smooth function
on the circle (computed here once, by FFT); N = 64 keeps the relative error near 1e-14. The
lower half-plane follows from w(z) = 2 exp(-z^2) - w(-z).
"""
import math

import numpy as np

import astjax.numpy as jnp

from ..core.library_rules import with_jvp
from ._util import as_complex, inexact

_N = 64
_L = math.sqrt(_N / math.sqrt(2.0))
_SQRT_PI = math.sqrt(math.pi)


def _weideman_coefficients(n: int = _N, length: float = _L) -> np.ndarray:
    m = 2 * n
    k = np.arange(-m + 1, m)
    t = length * np.tan(k * np.pi / m / 2)
    f = np.concatenate([[0.0], np.exp(-t * t) * (length ** 2 + t * t)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return np.flipud(a[1:n + 1])


_COEFFICIENTS = _weideman_coefficients()


def _complex(z):
    return as_complex(jnp.asarray(inexact(z)))


def _w_upper(z):
    iz = 1j * z
    denominator = _L - iz
    p = jnp.polyval(jnp.asarray(_COEFFICIENTS, z.dtype), (_L + iz) / denominator)
    return 2 * p / (denominator * denominator) + (1 / _SQRT_PI) / denominator


def _wofz_value(z):
    upper = jnp.imag(z) >= 0
    w = _w_upper(jnp.where(upper, z, -z))
    return jnp.where(upper, w, 2 * jnp.exp(-z * z) - w)


def _wofz_jvp(primals, tangents):
    (z,), (t,) = primals, tangents
    w = wofz(z)
    return w, (-2 * z * w + 2j / _SQRT_PI) * t


def wofz(z):
    """The Faddeeva function exp(-z^2) erfc(-iz), complex."""
    return with_jvp("wofz", _wofz_value, _wofz_jvp, _complex(z))


# ---------------------------------------------------------------- erfcx and Dawson's integral
def _erfcx_nonnegative(x):
    """erfcx(x) = w(ix) for x >= 0, where Weideman's expansion is real."""
    denominator = _L + x
    p = jnp.polyval(jnp.asarray(_COEFFICIENTS, x.dtype), (_L - x) / denominator)
    return 2 * p / (denominator * denominator) + (1 / _SQRT_PI) / denominator


def _erfcx_value(x):
    y = _erfcx_nonnegative(jnp.abs(x))
    return jnp.where(x >= 0, y, 2 * jnp.exp(x * x) - y)


def _erfcx_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = erfcx(x)
    return y, (2 * x * y - 2 / _SQRT_PI) * t


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x) (w(ix) for complex x)."""
    x = inexact(x)
    if x.dtype.kind == "c":
        return wofz(1j * x)
    return with_jvp("erfcx", _erfcx_value, _erfcx_jvp, x)


def _dawson_series(x, terms=14):
    """sum_n (-2)^n x^(2n+1) / (2n+1)!!, for |x| <= 0.25."""
    x2 = x * x
    total = jnp.zeros_like(x)
    for n in reversed(range(terms)):
        total = total * (-2.0 * x2 / (2 * n + 3)) + 1.0  # Horner over the ratio of terms
    return x * total


def _dawson_asymptotic(x, terms=8):
    """1/(2x) sum_k (2k-1)!! / (2x^2)^k, for |x| >= 50."""
    inverse = 1 / (2 * x * x)
    total = jnp.ones_like(x)
    for k in reversed(range(1, terms)):
        total = 1.0 + (2 * k - 1) * inverse * total
    return total / (2 * x)


def _dawsn_value(x):
    small, large = jnp.abs(x) <= 0.25, jnp.abs(x) >= 50
    middle = jnp.where(small | large, 1.0, x)
    from_w = (_SQRT_PI / 2) * jnp.imag(_w_upper(_complex(middle)))
    series = _dawson_series(jnp.where(small, x, 0.0))
    asymptotic = _dawson_asymptotic(jnp.where(large, x, 100.0))
    return jnp.where(small, series, jnp.where(large, asymptotic, from_w)).astype(x.dtype)


def _dawsn_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = dawsn(x)
    return y, (1 - 2 * x * y) * t


def dawsn(x):
    """Dawson's integral exp(-x^2) int_0^x exp(t^2) dt."""
    x = inexact(x)
    if x.dtype.kind == "c":
        raise TypeError("dawsn: complex arguments are not supported")
    return with_jvp("dawsn", _dawsn_value, _dawsn_jvp, x)


# ---------------------------------------------------------------- Fresnel integrals
_FRESNEL_C = [(-1) ** n / (math.factorial(2 * n) * (4 * n + 1)) for n in range(24)][::-1]
_FRESNEL_S = [(-1) ** n / (math.factorial(2 * n + 1) * (4 * n + 3)) for n in range(24)][::-1]


def _fresnel_series(x):
    """(S, C) by their power series in t = pi x^2 / 2, for |x| <= 1.6 (terms below 10)."""
    t = (math.pi / 2) * x * x
    t2 = t * t
    s = x * t * jnp.polyval(jnp.asarray(_FRESNEL_S, x.dtype), t2)
    return s, x * jnp.polyval(jnp.asarray(_FRESNEL_C, x.dtype), t2)


def _fresnel_from_w(x):
    """(S, C) of x >= 0 from C + iS = (1+i)/2 (1 - exp(i pi x^2/2) w((1+i) sqrt(pi)/2 x))."""
    z = _complex(x) * ((1 + 1j) * _SQRT_PI / 2)
    phase = jnp.exp(_complex(x * x) * (1j * math.pi / 2))
    value = (1 + 1j) / 2 * (1 - phase * _w_upper(z))
    return jnp.imag(value), jnp.real(value)


def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = int_0^x (sin, cos)(pi t^2 / 2) dt."""
    x = inexact(x)
    if x.dtype.kind == "c":
        raise TypeError("fresnel: complex arguments are not supported")
    a = jnp.abs(x)
    small = a <= 1.6
    s_small, c_small = _fresnel_series(jnp.where(small, a, 0.0))
    huge = a > 1e8  # the oscillation is below the float's resolution there
    s_large, c_large = _fresnel_from_w(jnp.where(small | huge, 2.0, a))
    s = jnp.where(small, s_small, jnp.where(huge, 0.5, s_large))
    c = jnp.where(small, c_small, jnp.where(huge, 0.5, c_large))
    sign = jnp.sign(x)
    return (sign * s).astype(x.dtype), (sign * c).astype(x.dtype)

