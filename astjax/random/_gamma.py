"""The gamma family as JAX draws it: `gamma`, `loggamma`, `beta`, `dirichlet`.

JAX maps a scalar sampler over `split(key, n)`, so each element is drawn from its own key.
Here an element's key is a lane of two uint32 arrays (its words), and a rejection loop runs
until every lane has accepted, a lane changing only while its own test asks for another
draw: each lane makes exactly the draws JAX's scalar sampler makes, and the samples are
JAX's numbers (float rounding apart). Gamma samples differentiate in their shape parameter by
implicit reparameterisation, as JAX's (so do beta and Dirichlet samples, built from them)."""
import numpy as np

from .. import lax
from .. import numpy as jnp
from ..core.library_rules import with_jvp
from ._base import (_as, _float_dtype, _param, _result_shape, _shape, _uniform_from_bits,
                    joined_bits, split, threefry2x32)
from .keys import key_data


def lane_keys(key, n: int):
    """The words of split(key, n): one key per element."""
    data = key_data(split(key, n))
    return data[:, 0], data[:, 1]


def split_lanes(k1, k2, num: int) -> list:
    """split(key, num) of every lane's key: num (words, words) pairs."""
    zero = np.asarray(0, np.uint32)
    return [threefry2x32(k1, k2, zero, np.asarray(j, np.uint32)) for j in range(num)]


def uniform_lanes(k1, k2, dtype, minval=0.0, maxval=1.0):
    """Each lane's uniform(key, (), dtype, minval, maxval): from the bits of counter 0."""
    zero = np.asarray(0, np.uint32)
    raw = joined_bits(*threefry2x32(k1, k2, zero, zero), np.dtype(f"uint{dtype.itemsize * 8}"))
    return _uniform_from_bits(raw, dtype, minval, maxval)


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


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia and Tsang; a < 1 boosted by U ** (1 / a))."""
    dtype = _float_dtype(dtype)
    a = _as(a, dtype)
    shape = tuple(jnp.shape(a)) if shape is None else _shape(shape)
    return _gamma(key, jnp.broadcast_to(a, shape), dtype)


def _gamma(key, alpha, dtype):
    """Gamma(alpha) samples, differentiable in alpha by implicit reparameterisation (as JAX):
    d sample / d alpha = -(dF/dalpha) / (dF/dx) at the sample, F the gamma CDF."""
    def sample(key_words, alpha):
        return gamma_of(key_words, alpha, log_space=False)

    def jvp(primals, tangents):
        x = sample(*primals)
        return x, lax.random_gamma_grad(primals[1], x) * tangents[1]

    return with_jvp("random_gamma", sample, jvp, key_data(key), alpha)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples: X / (X + Y) of two gamma samples, drawn in log space and scaled by
    the larger (JAX's algorithm and draws)."""
    dtype = _float_dtype(dtype)
    a, b = _as(a, dtype), _as(b, dtype)
    shape = np.broadcast_shapes(np.shape(a), np.shape(b)) if shape is None else _shape(shape)
    ka, kb = split(key)
    log_x = _loggamma(ka, jnp.broadcast_to(a, shape), dtype)
    log_y = _loggamma(kb, jnp.broadcast_to(b, shape), dtype)
    log_max = jnp.maximum(log_x, log_y)
    x, y = jnp.exp(log_x - log_max), jnp.exp(log_y - log_max)
    return x / (x + y)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples along the last axis: the softmax of log-gamma samples (JAX's
    algorithm and draws)."""
    dtype = _float_dtype(dtype)
    alpha = _as(alpha, dtype)
    batch = tuple(alpha.shape[:-1]) if shape is None else _shape(shape)
    log_g = _loggamma(key, jnp.broadcast_to(alpha, batch + tuple(alpha.shape[-1:])), dtype)
    return _softmax(log_g)


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) samples, computed in log space so that small a does not underflow:
    log G(a + 1) + log(U) / a for a < 1 (the boost gamma applies as a product).
    Differentiable in a by implicit reparameterisation, as `gamma`."""
    dtype = _float_dtype(dtype)
    a = _param(a, dtype)
    shape = _result_shape("loggamma", shape, a)
    return _loggamma(key, jnp.broadcast_to(a, shape), dtype)


def _loggamma(key, alpha, dtype):
    """d log x / d alpha = (dx / d alpha) / x, with x = exp(log x) kept above 0 (as JAX)."""
    def sample(key_words, alpha):
        return gamma_of(key_words, alpha, log_space=True)

    def jvp(primals, tangents):
        log_x = sample(*primals)
        x = jnp.maximum(jnp.exp(log_x), np.asarray(np.finfo(dtype).tiny, dtype))
        return log_x, lax.random_gamma_grad(primals[1], x) / x * tangents[1]

    return with_jvp("random_loggamma", sample, jvp, key_data(key), alpha)


def _softmax(x):
    """jax.nn.softmax along the last axis, as it computes (nn imports this package)."""
    unnormalized = jnp.exp(x - lax.stop_gradient(jnp.max(x, axis=-1, keepdims=True)))
    return unnormalized / jnp.sum(unnormalized, axis=-1, keepdims=True)
