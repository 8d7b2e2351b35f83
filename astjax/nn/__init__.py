"""astjax.nn: JAX's activation functions and normalisations, as compositions of primitives.

Numerically stable forms as in JAX: softplus through logaddexp, softmax and logsumexp subtract the
max first. One deliberate default: `one_hot` returns float32, as JAX does (JAX's default float),
even though astjax.numpy otherwise follows NumPy's float64 defaults. The parameter initializers
are in `astjax.nn.initializers`.
"""
import math
from typing import NamedTuple

import numpy as np

import astjax.numpy as jnp
from .. import config
from . import initializers  # noqa: F401
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind


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
    finite where x is (an all -inf row must give -inf, not nan). Its gradient is stopped, as
    in JAX: the results do not depend on it, so its derivative is zero, computed or not."""
    m = jnp.max(x, axis, keepdims=True)
    return bind("stop_gradient", bind("select", bind("is_finite", m), m, u.zero(u.dtype_of(m))))


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
    """exp(x - max) / sum(exp(x - max)) along `axis`, JAX's formula: a row with +inf gives
    nan, and `where` leaves elements out (their result is 0)."""
    x = _as_operand(x)
    shifted = _shifted_by_max(x, axis, where)
    unnormalized = bind("exp", shifted)  # (0 where `where` leaves an element out)
    result = bind("div", unnormalized, jnp.sum(unnormalized, axis, keepdims=True))
    return result if where is None else jnp.where(where, result, 0)


def log_softmax(x, axis=-1, where=None):
    """x - max - log(sum(exp(x - max))) along `axis`, JAX's formula (masked elements of
    `where`: -inf)."""
    x = _as_operand(x)
    shifted = _shifted_by_max(x, axis, where)
    total = jnp.sum(bind("exp", shifted), axis, keepdims=True)  # (exp(-inf): 0 if left out)
    result = bind("sub", shifted, bind("log", total))
    return result if where is None else jnp.where(where, result, -np.inf)


def _shifted_by_max(x, axis, where):
    """x minus its max along `axis` (of the elements `where` keeps; the others -inf), the max's
    gradient stopped. A plain max, where logsumexp's `_stable_max` replaces an infinite one:
    XLA fuses this reduction into the elementwise work around it and not that select (the
    vmapped attention of bench/fusion_workloads.py: 0.93-1.03 -> 0.68-0.97 ms a call)."""
    if where is not None:
        x = jnp.where(where, x, -np.inf)
    m = jnp.max(x, axis, keepdims=True)
    return bind("sub", x, bind("stop_gradient", m))


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
    """x[..., None] == arange(num_classes), in the default float dtype unless dtype says
    otherwise (as JAX);
    out-of-range and negative classes give all-zero rows."""
    x = _as_operand(x)
    num_classes = u.static_int(num_classes, "one_hot's num_classes")
    rank = u.ndim(x) + 1
    axis = u.normalize_axis(axis, rank)
    shape = tuple(num_classes if i == axis else 1 for i in range(rank))
    index_dtype = u.dtype_of(x).name if u.kind(x) in "iu" else "int64"
    classes = bind("iota", dtype=index_dtype, shape=shape, dimension=axis)
    hits = bind("eq", jnp.expand_dims(x, axis), classes)
    return jnp.astype(hits, config.default_dtype("float") if dtype is None else dtype)


# ---------------------------------------------------------------- more activations
def identity(x):
    return _as_operand(x)


def tanh(x):
    return bind("tanh", _as_operand(x))


def mish(x):
    """x tanh(softplus(x))."""
    x = _as_operand(x)
    return bind("mul", x, bind("tanh", softplus(x)))


def squareplus(x, b=4):
    """(x + sqrt(x^2 + b)) / 2: a smooth relu made of algebra."""
    x = _as_operand(x)
    return (x + jnp.sqrt(x * x + b)) / 2


def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, from whichever of log1p / expm1 keeps precision."""
    x = _as_operand(x)
    return jnp.where(x > math.log(2.0), jnp.log1p(-jnp.exp(-x)), jnp.log(-jnp.expm1(-x)))


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) along axis, computed stably."""
    if where is not None:
        raise NotImplementedError("logmeanexp(where=...) is not supported yet")
    x = _as_operand(x)
    count = math.prod(u.shape(x)[a] for a in u.normalize_axes(axis, u.ndim(x)))
    return logsumexp(x, axis, keepdims=keepdims) - math.log(count)


def sparse_plus(x):
    """0 below -1, x above 1, (x + 1)^2 / 4 between."""
    x = _as_operand(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def sparse_sigmoid(x):
    """The derivative of sparse_plus: (x + 1) / 2 clipped to [0, 1]."""
    return 0.5 * jnp.clip(_as_operand(x) + 1.0, 0.0, 2.0)


# ---------------------------------------------------------------- attention
def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None):
    """softmax(q k^T * scale + bias, masked) v, with JAX's layout: query (B, T, N, H), key and
    value (B, S, K, H) with N a multiple of K (grouped-query attention); the batch axis may be
    left out. The softmax runs in float32 whatever the inputs' dtype, as JAX's."""
    if query_seq_lengths is not None or key_value_seq_lengths is not None:
        raise NotImplementedError("dot_product_attention(*_seq_lengths=...) is not supported yet")
    if local_window_size is not None:
        raise NotImplementedError("dot_product_attention(local_window_size=...) is not "
                                  "supported yet")
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation {implementation!r} is not "
                         "available (astjax has the 'xla' formulation only)")
    q, k, v = (_as_4d(jnp.asarray(a), "query key value".split()[i])
               for i, a in enumerate((query, key, value)))
    out_shape = jnp.shape(query)[:-1] + (v.shape[-1],)  # (lower ranks: leading axes of 1)
    bias = None if bias is None else _as_4d(jnp.asarray(bias), "bias")
    mask = None if mask is None else _as_4d(jnp.asarray(mask), "mask")
    heads, kv_heads, depth = q.shape[2], k.shape[2], q.shape[3]
    if heads % kv_heads:
        raise ValueError(f"dot_product_attention: {heads} query heads are not a multiple of "
                         f"{kv_heads} key/value heads")
    groups = heads // kv_heads
    q = q.reshape(q.shape[:2] + (kv_heads, groups, depth))
    scale = 1.0 / math.sqrt(depth) if scale is None else scale
    logits = jnp.einsum("btkgh,bskh->bkgts", q, k) * scale
    logits = logits.reshape((logits.shape[0], heads) + logits.shape[3:])
    if bias is not None:
        logits = logits + jnp.asarray(bias)
    work = np.dtype(np.float32)
    logits = logits.astype(work)
    large = np.asarray(-0.7 * np.finfo(work).max, work)
    if mask is not None:
        logits = jnp.where(jnp.asarray(mask), logits, large)
    if is_causal:
        t, s = logits.shape[-2], logits.shape[-1]
        logits = jnp.where(jnp.tril(jnp.ones((t, s), bool)), logits, large)
    weights = softmax(logits, axis=-1).astype(v.dtype)
    weights = weights.reshape((weights.shape[0], kv_heads, groups) + weights.shape[2:])
    out = jnp.einsum("bkgts,bskh->btkgh", weights, v)
    return out.reshape(out_shape)


def _as_4d(x, name: str):
    """x with leading axes of 1 up to rank 4 (JAX reads (T, N, H) as one batch, and so on)."""
    if not 1 <= x.ndim <= 4:
        raise ValueError(f"dot_product_attention: {name} of rank {x.ndim} (1 to 4: "
                         "(B, T, N, H) with leading axes left out)")
    return x.reshape((1,) * (4 - x.ndim) + x.shape) if x.ndim < 4 else x


# ---------------------------------------------------------------- block-scaled matmuls
class BlockScaleConfig(NamedTuple):
    mode: str
    block_size: int
    data_type: object
    scale_type: object
    global_scale: object
    infer_only: bool


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """sum_k (lhs[b, m, k] lhs_scales[b, m, k // block]) (rhs[b, n, k] rhs_scales[b, n, k // block]),
    the block-scaled matmul of low-precision operands (computed in float32, as JAX: which
    runs it only on GPUs with cuDNN)."""
    a, b, sa, sb = (_as_operand(x) for x in (lhs, rhs, lhs_scales, rhs_scales))
    if not all(u.ndim(x) == 3 for x in (a, b, sa, sb)):
        raise u.ShapeError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    (batch_a, m, k), (batch_b, n, k_b) = u.shape(a), u.shape(b)
    if k != k_b or batch_a != batch_b or u.shape(sa)[0] != batch_a or u.shape(sb)[0] != batch_b \
            or u.shape(sa)[1] != m or u.shape(sb)[1] != n:
        raise u.ShapeError(f"scaled_matmul: shapes do not match: a {u.shape(a)}, b {u.shape(b)}, "
                           f"a_scales {u.shape(sa)}, b_scales {u.shape(sb)}")
    a_scaled = _block_scaled(a, sa)
    b_scaled = _block_scaled(b, sb)
    out = jnp.einsum("bmk,bnk->bmn", a_scaled, b_scaled)
    return out.astype(preferred_element_type)


def _block_scaled(x, scales):
    """x times its scales repeated over blocks of the last axis, in float32."""
    k, blocks = int(u.shape(x)[-1]), int(u.shape(scales)[-1])
    if blocks == 0 or k % blocks:
        raise u.ShapeError("scaled_matmul: the contracting size must be a multiple of the "
                           "scales' last axis")
    repeated = jnp.repeat(scales.astype(np.float32), k // blocks, axis=-1)
    return x.astype(np.float32) * repeated


def get_scaled_dot_general_config(mode, global_scale=None):
    """The block-scaling configuration of mode 'mxfp8' or 'nvfp4', as JAX describes them."""
    import ml_dtypes
    if mode == "nvfp4":
        one = jnp.ones((1,), dtype=np.float32)
        return BlockScaleConfig("nvfp4", 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn,
                                one if global_scale is None else global_scale, False)
    if mode == "mxfp8":
        return BlockScaleConfig("mxfp8", 32, ml_dtypes.float8_e4m3fn,
                                ml_dtypes.float8_e8m0fnu, None, False)
    raise ValueError(f"Unsupported mode: {mode}")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """lax.dot_general when configs is None; block-scaled quantization (configs) is refused."""
    if configs is not None:
        raise NotImplementedError("scaled_dot_general with quantization configs: astjax has no "
                                  "float8/float4 dtypes; use configs=None (lax.dot_general) or "
                                  "nn.scaled_matmul with explicit scales")
    from .. import lax
    return lax.dot_general(lhs, rhs, dimension_numbers,
                           preferred_element_type=preferred_element_type)
