"""astjax.nn: JAX's activation functions and normalisations, as compositions of primitives.

Numerically stable forms as in JAX: softplus through logaddexp, softmax and logsumexp subtract the
max first. One deliberate default: `one_hot` returns float32, as JAX does (JAX's default float),
even though astjax.numpy otherwise follows NumPy's float64 defaults.
"""
import math

import numpy as np

import astjax.numpy as jnp
from .numpy import _util as u
from .numpy._creation import _as_operand
from .numpy._util import bind


def relu(x):
    return bind("max", _as_operand(x), 0)


def relu6(x):
    return bind("min", bind("max", _as_operand(x), 0), 6)


def sigmoid(x):
    return bind("logistic", _as_operand(x))


def log_sigmoid(x):
    return bind("neg", softplus(bind("neg", _as_operand(x))))


def softplus(x):
    return bind("logaddexp", _as_operand(x), 0)


def soft_sign(x):
    x = _as_operand(x)
    return bind("div", x, bind("add", bind("abs", x), 1))


def silu(x):
    x = _as_operand(x)
    return bind("mul", x, bind("logistic", x))


swish = silu


def gelu(x, approximate=True):
    x = _as_operand(x)
    if approximate:  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = bind("mul", bind("mul", x, x), x)
        inner = bind("mul", bind("add", x, bind("mul", cube, 0.044715)), math.sqrt(2 / math.pi))
        return bind("mul", bind("mul", x, 0.5), bind("add", bind("tanh", inner), 1))
    return bind("mul", bind("mul", x, 0.5), bind("erfc", bind("mul", x, -1 / math.sqrt(2))))


def elu(x, alpha=1.0):
    x = _as_operand(x)
    positive = bind("gt", x, 0)
    safe = bind("select", positive, u.zero(u.dtype_of(x)), x)  # no overflow in the unused branch
    return bind("select", positive, x, bind("mul", bind("expm1", safe), alpha))


def celu(x, alpha=1.0):
    x = _as_operand(x)
    negative_part = bind("mul", bind("expm1", bind("div", bind("min", x, 0), alpha)), alpha)
    return bind("add", bind("max", x, 0), negative_part)


def selu(x):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return bind("mul", elu(x, alpha), scale)


def leaky_relu(x, negative_slope=0.01):
    x = _as_operand(x)
    return bind("select", bind("ge", x, 0), x, bind("mul", x, negative_slope))


def hard_tanh(x):
    return bind("clamp", -1, _as_operand(x), 1)


def hard_sigmoid(x):
    return bind("div", relu6(bind("add", _as_operand(x), 3)), 6)


def hard_silu(x):
    x = _as_operand(x)
    return bind("mul", x, hard_sigmoid(x))


hard_swish = hard_silu


def glu(x, axis=-1):
    a, b = jnp.split(x, 2, axis)
    return bind("mul", a, sigmoid(b))


# ---------------------------------------------------------------- normalisations over an axis
def _stable_max(x, axis):
    """The max along axis, kept as size 1, with infinities replaced by 0 so that x - max stays
    finite where x is (an all -inf row must give -inf, not nan)."""
    m = jnp.max(x, axis, keepdims=True)
    return bind("select", bind("is_finite", m), m, u.zero(u.dtype_of(m)))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    a = _as_operand(a)
    m = _stable_max(a, axis)
    exps = bind("exp", bind("sub", a, m))
    if b is not None:
        exps = bind("mul", exps, _as_operand(b))
    total = jnp.sum(exps, axis, keepdims=True)
    sign = bind("sign", total)
    out = bind("add", bind("log", bind("abs", total)), m)
    if not keepdims:
        axes = u.normalize_axes(axis, u.ndim(a))
        out, sign = (jnp.squeeze(v, axes) for v in (out, sign))
    return (out, sign) if return_sign else out


def softmax(x, axis=-1, where=None):
    x = _as_operand(x)
    unnormalized = bind("exp", bind("sub", x, _stable_max(x, axis)))
    return bind("div", unnormalized, jnp.sum(unnormalized, axis, keepdims=True))


def log_softmax(x, axis=-1, where=None):
    x = _as_operand(x)
    shifted = bind("sub", x, _stable_max(x, axis))
    total = jnp.sum(bind("exp", shifted), axis, keepdims=True)
    return bind("sub", shifted, bind("log", total))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    x = _as_operand(x)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True)
    if variance is None:
        centered = bind("sub", x, mean)
        variance = jnp.mean(bind("mul", centered, centered), axis, keepdims=True)
    return bind("mul", bind("sub", x, mean), bind("rsqrt", bind("add", variance, epsilon)))


normalize = standardize


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """x[..., None] == arange(num_classes), as float32 unless dtype says otherwise (JAX's default);
    out-of-range and negative classes give all-zero rows."""
    x = _as_operand(x)
    num_classes = u.static_int(num_classes, "one_hot's num_classes")
    rank = u.ndim(x) + 1
    axis = u.normalize_axis(axis, rank)
    shape = tuple(num_classes if i == axis else 1 for i in range(rank))
    index_dtype = u.dtype_of(x).name if u.kind(x) in "iu" else "int64"
    classes = bind("iota", dtype=index_dtype, shape=shape, dimension=axis)
    hits = bind("eq", jnp.expand_dims(x, axis), classes)
    return jnp.astype(hits, np.float32 if dtype is None else dtype)
