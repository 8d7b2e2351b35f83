"""astjax.nn.initializers: JAX's parameter initializers. Each factory returns
init(key, shape, dtype=None) drawing from astjax.random, so the same key gives JAX's values."""
import math

import numpy as np

import astjax.numpy as jnp
from astjax import random

from .. import config
from ..core.prims.elementwise import part_dtype


def _dtype(dtype):
    return np.dtype(dtype) if dtype is not None else config.default_dtype("float")


def zeros(key, shape, dtype=None, out_sharding=None):
    return jnp.zeros(shape, _dtype(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    return jnp.ones(shape, _dtype(dtype))


def constant(value, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_dtype(dtype))
    return init


def uniform(scale=1e-2, dtype=None):
    """U[0, scale)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.uniform(key, shape, dtype) * jnp.array(scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """A normal truncated to [lower, upper] standard deviations, then scaled by stddev."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        return random.truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)
    return init


def _axes_size(shape, axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """(fan_in, fan_out): the input and output sizes times the receptive field's."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"cannot compute the fans of a {len(shape)}-dimensional weight with the "
                         "default in_axis: give in_axis explicitly")
    in_size, out_size = _axes_size(shape, in_axis), _axes_size(shape, out_axis)
    receptive = math.prod(shape) / in_size / out_size / _axes_size(shape, batch_axis)
    return in_size * receptive, out_size * receptive


# the standard deviation of a unit normal truncated to [-2, 2] (real) and of the complex one
_TRUNCATED_STD, _COMPLEX_TRUNCATED_STD = .87962566103423978, .95311164380491208


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """Samples of variance scale / n, n the fan chosen by mode, from the distribution named."""
    if mode not in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        dtype = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
             "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = jnp.array(scale / n, dtype=dtype)
        complex_ = dtype.kind == "c"
        if distribution == "truncated_normal":
            if complex_:
                stddev = jnp.sqrt(variance) / jnp.array(_COMPLEX_TRUNCATED_STD, dtype)
                return _complex_truncated_normal(key, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STD, dtype)
            return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if complex_:
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
    return init


def _complex_uniform(key, shape, dtype):
    """Uniform on the unit disc (modulus sqrt(2 U), so of unit variance)."""
    key_r, key_theta = random.split(key)
    real = part_dtype(dtype)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    key_r, key_theta = random.split(key)
    real = part_dtype(dtype)
    t = (1 - jnp.exp(jnp.array(-(upper ** 2), dtype))) * \
        random.uniform(key_r, shape, real).astype(dtype)
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real).astype(dtype)
    return r * jnp.exp(1j * theta)


def _variance_family(scale, mode, distribution):
    def factory(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)
    return factory


glorot_uniform = xavier_uniform = _variance_family(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _variance_family(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _variance_family(1.0, "fan_in", "uniform")
lecun_normal = _variance_family(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _variance_family(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _variance_family(2.0, "fan_in", "truncated_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A matrix (reshaped to shape) with orthonormal columns along column_axis."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        shape = tuple(int(d) for d in shape)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A convolution kernel that is an orthogonal matrix at its centre tap, zero elsewhere."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _dtype(dtype)
        shape = tuple(int(d) for d in shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype).at[centre].set(matrix)
    return init


Initializer = object  # (a type annotation in JAX: init(key, shape, dtype) -> Array)
