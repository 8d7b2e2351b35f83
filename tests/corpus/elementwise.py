"""Chains of elementwise math, broadcasting, globals read by the function, plain-NumPy code."""
import numpy as np

import astjax.numpy as jnp
from astjax import nn

from .registry import Case, array, composite, one_array, same_shape, shapes

SCALE = 1.5                                   # a global float the functions below read
OFFSET = np.array([0.5, -1.0, 2.0])           # a global array: becomes an implicit input
COEFFS = (0.5, -1.0, 0.25, 2.0)               # a global tuple: static, unrolled


def gelu_tanh(x):
    inner = jnp.sqrt(2.0 / jnp.pi) * (x + 0.044715 * x ** 3)
    return 0.5 * x * (1.0 + jnp.tanh(inner))


def softplus_stable(x):
    return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0.0)


def trig_broadcast(x, y):
    """x: (m, n), y: (n,) -- broadcasting a row against a matrix."""
    return jnp.sin(x) * jnp.cos(y) + jnp.tanh(x * y) - y / (1.0 + x * x)


def horner(x):
    acc = jnp.zeros_like(x)
    for c in COEFFS:
        acc = acc * x + c
    return acc


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_smooth_abs(x, y):
    d = x - y
    return np.sqrt(d * d + 1e-3) + np.exp(-0.5 * d ** 2) * np.cos(y)


def clipped(x):
    y = jnp.where(x > 1.0, 1.0, jnp.where(x < -1.0, -1.0, x))
    return y + jnp.clip(x, -0.5, 0.5) + jnp.sign(x) * jnp.floor(jnp.abs(x))


def polar(x, y):
    r = jnp.sqrt(x ** 2 + y ** 2 + 1.0)
    return x / r, y / r, jnp.arctan2(y, x + 4.0)


def scaled_offset(x):
    return jnp.exp(-SCALE * x * x) + OFFSET * SCALE


def activations(x):
    return nn.relu(x) + nn.sigmoid(x) * nn.softplus(x) - nn.gelu(x) + nn.silu(x)


def smooth_activations(x):
    return nn.sigmoid(x) * nn.softplus(x) + nn.gelu(x, approximate=True) + nn.silu(x) * 0.5


def pow_and_logs(x):
    ax = jnp.abs(x) + 0.5
    return jnp.log(ax) * jnp.sqrt(ax) + ax ** 1.5 - jnp.log2(ax) + jnp.exp2(-ax) + jnp.expm1(x * 0.1)


def _trig_args(dtype):
    @composite
    def make(draw, dtype):
        m, n = draw(shapes(2, 2))
        return draw(array(dtype, (m, n))), draw(array(dtype, (n,)))
    return make(dtype)


def _offset_args(dtype):
    return array(dtype, shapes(2, 2, max_side=4).map(lambda s: (s[0], 3))).map(lambda x: (x,))


CASES = [
    Case("gelu_tanh", gelu_tanh, one_array(), jax=True, tags=("elementwise",)),
    Case("softplus_stable", softplus_stable, one_array(), differentiable=False, jax=True,
         tags=("elementwise",)),
    Case("trig_broadcast", trig_broadcast, _trig_args, jax=True,
         tags=("elementwise", "broadcast")),
    Case("horner", horner, one_array(), jax=True, tags=("elementwise", "static-for")),
    Case("np_sigmoid", np_sigmoid, one_array(), tags=("elementwise", "numpy")),
    Case("np_smooth_abs", np_smooth_abs, same_shape(2), tags=("elementwise", "numpy")),
    Case("clipped", clipped, one_array(), differentiable=False, jax=True,
         tags=("elementwise", "where")),
    Case("polar", polar, same_shape(2), jax=True, tags=("elementwise", "tuple-out")),
    Case("scaled_offset", scaled_offset, _offset_args, jax=True,
         tags=("elementwise", "global")),
    Case("activations", activations, one_array(), differentiable=False, jax=True,
         tags=("elementwise", "nn")),
    Case("smooth_activations", smooth_activations, one_array(), jax=True,
         tags=("elementwise", "nn")),
    Case("pow_and_logs", pow_and_logs, one_array(), differentiable=False, jax=True,
         tags=("elementwise",)),
]
