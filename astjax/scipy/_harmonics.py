"""Bessel functions of the first kind of integer order (bessel_jn) and spherical harmonics.

bessel_jn is Miller's backward recurrence, normalised by J_0 + 2 sum_k J_2k = 1, with JAX's
signature: every order 0..v at once, stacked in front. sph_harm_y runs the recurrence of the
fully normalised associated Legendre functions up to the static degree n_max, with the
Condon-Shortley phase, as SciPy's sph_harm_y.
"""
import math

import numpy as np

import astjax.numpy as jnp

from ..control import fori_loop
from ..numpy._util import concretization, known_value
from ._util import inexact


def bessel_jn(z, *, v: int, n_iter: int = 50):
    """J_0(z) .. J_v(z) for real z, shape (v + 1, *z.shape)."""
    v, n_iter = int(v), int(n_iter)
    if v < 0 or n_iter < v:
        raise ValueError("bessel_jn: need 0 <= v <= n_iter")
    z = inexact(z)
    if z.dtype.kind == "c":
        raise ValueError("bessel_jn: complex input is not supported")
    zero = z == 0
    safe = jnp.where(zero, 1.0, z)
    later, current = jnp.zeros_like(z), jnp.full_like(z, 1e-16)
    norm = jnp.zeros_like(z)
    kept = {}
    for k in range(n_iter, -1, -1):  # current is f_k; f_(k-1) = 2k f_k / z - f_(k+1)
        if k <= v:
            kept[k] = current
        norm = norm + (2 * current if k % 2 == 0 else 0.0)
        later, current = current, 2 * k * current / safe - later
    norm = norm - kept[0]
    orders = [jnp.where(zero, 1.0 if k == 0 else 0.0, kept[k] / norm) for k in range(v + 1)]
    return jnp.stack(orders)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic Y_n^m(theta, phi): theta the polar angle in [0, pi], phi the
    azimuth; n_max (static) bounds the degrees."""
    if diff_n is not None:
        raise NotImplementedError("sph_harm_y: diff_n is not supported (as in JAX)")
    n, m = jnp.asarray(n), jnp.asarray(m)
    theta, phi = inexact(theta, phi)
    if theta.ndim == 0:
        theta = theta[None]
    n_max = _static_degree(n, n_max)
    shape = jnp.broadcast_shapes(n.shape, m.shape, theta.shape, phi.shape)
    n, m, theta, phi = (jnp.broadcast_to(v, shape) for v in (n, m, theta, phi))
    order = jnp.abs(m).astype(theta.dtype)
    degree = jnp.minimum(n, n_max).astype(theta.dtype)
    x, s = jnp.cos(theta), jnp.sin(theta)

    def diagonal(k, p):  # P_k^k from P_(k-1)^(k-1), while k <= |m|
        kf = jnp.asarray(k).astype(theta.dtype)
        return jnp.where(kf <= order, -p * s * jnp.sqrt((2 * kf + 1) / (2 * kf)), p)

    def upward(l, state):  # P_l^m from P_(l-1)^m and P_(l-2)^m, while |m| < l <= n
        older, old = state
        lf = jnp.asarray(l).astype(theta.dtype)
        going = (lf > order) & (lf <= degree)
        m2 = order * order
        lower = jnp.where(going, lf * lf - m2, 1.0)
        previous = jnp.maximum((lf - 1) ** 2 - m2, 0.0) / (4 * (lf - 1) ** 2 - 1)
        new = jnp.sqrt((4 * lf * lf - 1) / lower) * (x * old - jnp.sqrt(previous) * older)
        return jnp.where(going, old, older), jnp.where(going, new, old)

    p = fori_loop(1, n_max + 1, diagonal, jnp.full_like(x, 1 / math.sqrt(4 * math.pi)))
    _, p = fori_loop(1, n_max + 1, upward, (jnp.zeros_like(p), p))
    y = p * jnp.exp(1j * order * phi)
    sign = jnp.where(order % 2 == 1, -1.0, 1.0)
    return jnp.where(m < 0, sign * jnp.conj(y), y)


def _static_degree(n, n_max):
    if n_max is None:
        value = known_value(n)
        if value is None:
            raise concretization("sph_harm_y needs the largest degree while compiling",
                                 hint="pass n_max= (a Python int) when n is computed")
        n_max = int(np.max(value)) if np.size(value) else 0
    return int(n_max)
