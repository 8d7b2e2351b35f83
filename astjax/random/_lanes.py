"""Samplers that draw each element from its own key, as JAX's gamma family does (JAX maps a
scalar sampler over `split(key, n)`), so that each element is the number JAX draws.

An element's key is a lane of two uint32 arrays (its words). A rejection loop runs until
every lane has accepted, and a lane changes only while its own test asks for another draw,
so each lane makes exactly the draws JAX's scalar sampler makes."""
import numpy as np

import astjax.numpy as jnp
from astjax import lax

from ._base import _uniform_from_bits, split, threefry2x32
from .keys import key_data


def lane_keys(key, n: int):
    """The words of split(key, n): one key per element."""
    data = key_data(split(key, n))
    return data[:, 0], data[:, 1]


def split_lanes(k1, k2, num: int) -> list:
    """split(key, num) of every lane's key: num (words, words) pairs."""
    zero = np.asarray(0, np.uint32)
    return [threefry2x32(k1, k2, zero, np.asarray(j, np.uint32)) for j in range(num)]


def _bits_lanes(k1, k2, dtype):
    """Each lane's bits(key, ()): the cipher of counter 0 (two words joined for 64 bits)."""
    zero = np.asarray(0, np.uint32)
    bits1, bits2 = threefry2x32(k1, k2, zero, zero)
    if np.dtype(dtype).itemsize == 8:
        wide = lax.convert_element_type(bits1, np.uint64)
        return lax.shift_left(wide, np.uint64(32)) | lax.convert_element_type(bits2, np.uint64)
    return bits1 ^ bits2


def uniform_lanes(k1, k2, dtype, minval=0.0, maxval=1.0):
    """Each lane's uniform(key, (), dtype, minval, maxval)."""
    return _uniform_from_bits(_bits_lanes(k1, k2, dtype), dtype, minval, maxval)


def normal_lanes(k1, k2, dtype):
    """Each lane's normal(key, (), dtype)."""
    lo = np.nextafter(np.asarray(-1.0, dtype), np.asarray(0.0, dtype))
    return np.asarray(np.sqrt(2), dtype) * lax.erf_inv(uniform_lanes(k1, k2, dtype, lo, 1.0))


def _where(mask, new: tuple, old: tuple) -> tuple:
    return tuple(jnp.where(mask, a, b) for a, b in zip(new, old))


def gamma_lanes(k1, k2, alpha, log_space: bool):
    """Gamma(alpha) of each lane (its log with log_space), by JAX's algorithm: Marsaglia
    and Tsang's rejection sampler, alpha < 1 boosted from alpha + 1 by U ** (1 / alpha)."""
    dtype = alpha.dtype
    const = lambda v: np.asarray(v, dtype)  # noqa: E731
    one, third = const(1), const(1 / 3)
    boost_mask = alpha >= one
    a = jnp.where(boost_mask, alpha, alpha + one)
    d = a - third
    c = third / jnp.sqrt(d)
    (k1, k2), (s1, s2) = split_lanes(k1, k2, 2)

    def rejected(x2, v3, u):
        return (u >= one - const(0.0331) * (x2 * x2)) & \
            (jnp.log(u) >= x2 * const(0.5) + d * ((one - v3) + jnp.log(v3)))

    def draw_normal(state):  # one lane's draws of x until v = 1 + x c is positive
        active, i1, i2, x, v = state
        going = active & (v <= 0)
        (n1, n2), (d1, d2) = split_lanes(i1, i2, 2)
        x_new = normal_lanes(d1, d2, dtype)
        return (active,) + _where(going, (n1, n2, x_new, one + x_new * c), (i1, i2, x, v))

    def draw(state):
        k1, k2, x2, v3, u = state
        active = rejected(x2, v3, u)
        (n1, n2), (x1k, x2k), (u1, u2) = split_lanes(k1, k2, 3)
        zeros = jnp.zeros_like(alpha)
        _, _, _, x, v = lax.while_loop(lambda s: jnp.any(s[0] & (s[4] <= 0)), draw_normal,
                                       (active, x1k, x2k, zeros, zeros - one))
        new = (n1, n2, x * x, (v * v) * v, uniform_lanes(u1, u2, dtype))
        return _where(active, new, state)

    start = (k1, k2, jnp.zeros_like(alpha), jnp.ones_like(alpha), jnp.full_like(alpha, 2))
    _, _, _, v3, _ = lax.while_loop(lambda s: jnp.any(rejected(*s[2:])), draw, start)
    if log_space:
        log_u = jnp.log1p(-uniform_lanes(s1, s2, dtype))  # -exponential(subkey)
        log_boost = jnp.where(boost_mask | (log_u == 0), const(0), log_u * (one / alpha))
        return (jnp.log(d) + jnp.log(v3)) + log_boost
    samples = one - uniform_lanes(s1, s2, dtype)
    boost = jnp.where(boost_mask, one, lax.pow(samples, one / alpha))
    return (d * v3) * boost


def gamma_of(key, alpha, log_space: bool):
    """Gamma(alpha) samples (their logs with log_space) of alpha's shape, element i from
    split(key, alpha.size)[i]."""
    shape = tuple(alpha.shape)
    flat = jnp.reshape(alpha, (-1,))
    k1, k2 = lane_keys(key, flat.shape[0])
    return jnp.reshape(gamma_lanes(k1, k2, flat, log_space), shape)
