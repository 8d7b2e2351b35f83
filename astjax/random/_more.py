"""The rest of `jax.random`'s samplers, each JAX's algorithm over astjax's draws.

Most are one transformation of `uniform`, `normal` or `exponential` draws taken from the same
keys in the same order as JAX takes them, so they agree with JAX 0.10.2 to float rounding:
`lognormal`, `pareto`, `rayleigh`, `wald`, `weibull_min`, `triangular`, `geometric`,
`maxwell`, `double_sided_maxwell` (its signs from `rademacher`, which draws them as JAX does
with `jax_enable_x64`, astjax's default). `binomial` (inversion where n min(p, 1 - p) <= 10,
BTRS rejection above) and `multinomial` (a scan of binomials) run JAX's loops on the same
uniforms: JAX's counts, but where a float rounds across an integer. The samplers built on gamma
draws (`chisquare`, `f`, `t`, `generalized_normal`) take them as JAX does, from `_gamma.py`'s
JAX-identical samplers, so they are JAX's numbers too; `ball` has JAX's distribution. Gamma-based
samples differentiate in their parameters by implicit reparameterisation, as JAX's.
"""
import functools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..config import default_dtype
from ..dtypes import KEY_DTYPE
from ._base import (_check_impl, _float_dtype, _param, _result_shape, _shape,
                    exponential, normal, rademacher, split, uniform)
from ._gamma import _gamma, _loggamma
from .keys import key_data

__all__ = ["ball", "binomial", "chisquare", "double_sided_maxwell", "f", "generalized_normal",
           "geometric", "key_dtype", "lognormal", "maxwell", "multinomial",
           "pareto", "rayleigh", "t", "triangular", "wald", "weibull_min"]


def key_dtype(impl_spec=None):
    """The dtype of typed keys (`key<fry>`; raw keys are uint32 arrays)."""
    _check_impl(impl_spec)
    return KEY_DTYPE


# ---------------------------------------------------------------- helpers
def _inexact(value):
    """value as an array of its own float dtype, the default float if it has none."""
    value = jnp.asarray(value)
    return value if value.dtype.kind in "fc" else value.astype(default_dtype("float"))


def _quiet(sampler):
    """sampler without NumPy's floating-point warnings: JAX's algorithms compute values in
    lanes a `where` then discards (logs of negatives, divisions by zero), and run eagerly here."""
    @functools.wraps(sampler)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return sampler(*args, **kwargs)
    return run


def _int_dtype(dtype):
    dtype = np.dtype(dtype or default_dtype("int"))
    if dtype.kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    return dtype


# ---------------------------------------------------------------- transformed draws
def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """exp(sigma * z) for z standard normal (complex normal for a complex dtype)."""
    if dtype is not None and np.dtype(dtype).kind == "c":
        dtype = np.dtype(dtype)
    else:
        dtype = _float_dtype(dtype)
    shape = _result_shape("lognormal", shape, sigma)
    return jnp.exp(normal(key, shape, dtype) * _param(sigma, dtype))


def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) on [1, inf): exp(E / b) for E standard exponential."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("pareto", shape, b)
    return jnp.exp(exponential(key, shape, dtype) / _param(b, dtype))


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh(scale): scale * sqrt(-2 log U) for U uniform in [0, 1)."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("rayleigh", shape, scale)
    u = uniform(key, shape, dtype)
    scale = jnp.broadcast_to(_param(scale, dtype), shape)
    return scale * jnp.sqrt(jnp.log(u) * np.asarray(-2, dtype))


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian with unit shape) of the given mean: Michael, Schucany and Haas's
    root of a chi-square(1) draw (a squared normal), the other root where a uniform says."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("wald", shape, mean)
    k1, k2 = split(key, 2)
    mean = jnp.broadcast_to(_param(mean, dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = v * v
    mean_sq = mean * mean
    sqrt_term = jnp.sqrt(4 * mean * y + mean_sq * (y * y))
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return jnp.where(z <= mean / (mean + x), x, mean_sq / x)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull(scale, concentration) by its inverse CDF: scale * (-log(1 - U)) ** (1 / c).
    The result has the broadcast shape of `shape` and the parameters, as JAX's."""
    dtype = _float_dtype(dtype)
    u = uniform(key, _shape(shape), dtype, 0, 1)
    exponent = np.asarray(1, dtype) / _param(concentration, dtype)
    return jnp.power(-jnp.log1p(-u), exponent) * _param(scale, dtype)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) by its inverse CDF, on either side of the mode."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("triangular", shape, left, mode, right)
    left, mode, right = (jnp.broadcast_to(_param(v, dtype), shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    below = left + jnp.sqrt(u * (right - left) * (mode - left))
    above = right - jnp.sqrt((1 - u) * (right - left) * (right - mode))
    return jnp.where(u < fc, below, above)


@_quiet
def geometric(key, p, shape=None, dtype=None):
    """Trials until the first success (1, 2, ...): floor(log U / log(1 - p)) + 1, computed in
    p's float dtype (U = 0 read as 1, as JAX does)."""
    dtype = _int_dtype(dtype)
    shape = _result_shape("geometric", shape, p)
    p = _inexact(p)
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, np.asarray(1, p.dtype), u)
    log_q = jnp.broadcast_to(jnp.log1p(-p), shape)
    return (jnp.floor(jnp.log(u) / log_q) + 1).astype(dtype)


def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell: the length of a standard normal 3-vector."""
    dtype = _float_dtype(dtype)
    return jnp.linalg.norm(normal(key, _shape(shape) + (3,), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Maxwell samples with random signs, scaled and shifted. As in JAX, the result's shape is
    shape + the parameters' broadcast shape, and an empty `shape` stands for that broadcast
    shape (so array parameters of shape s give samples of shape s + s)."""
    dtype = _float_dtype(dtype)
    params = tuple(np.broadcast_shapes(jnp.shape(loc), jnp.shape(scale)))
    shape = (_shape(shape) or params) + params
    maxwell_key, sign_key = split(key)
    magnitude = maxwell(maxwell_key, shape, dtype)
    sign = rademacher(sign_key, shape, dtype)
    return sign * magnitude * _param(scale, dtype) + _param(loc, dtype)


# ---------------------------------------------------------------- built on gamma draws
def chisquare(key, df, shape=None, dtype=None):
    """Chi-square(df): 2 * Gamma(df / 2), drawn in log space as JAX does."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("chisquare", shape, df)
    half = jnp.broadcast_to(_param(df, dtype) / 2, shape)
    return jnp.exp(_loggamma(key, half, dtype)) * 2


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden): the ratio of two chi-square draws, each over its degrees of freedom."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("f", shape, dfnum, dfden)
    dfnum, dfden = _param(dfnum, dtype), _param(dfden, dtype)
    key_den, key_num = split(key)
    num = chisquare(key_num, dfnum, shape, dtype) / dfnum
    den = chisquare(key_den, dfden, shape, dtype) / dfden
    return num / den


def t(key, df, shape=None, dtype=None):
    """Student's t(df): a standard normal over sqrt(Gamma(df / 2) / (df / 2))."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("t", shape, df)
    key_n, key_g = split(key)
    z = normal(key_n, shape, dtype)
    half = jnp.broadcast_to(_param(df, dtype) / 2, shape)
    return z * jnp.sqrt(half / _gamma(key_g, half, dtype))


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal, density proportional to exp(-|x| ** p): a random sign times
    Gamma(1 / p) ** (1 / p)."""
    dtype = _float_dtype(dtype)
    shape = _shape(shape)
    key_g, key_sign = split(key)
    inverse = np.asarray(1, dtype) / _param(p, dtype)
    g = _gamma(key_g, jnp.broadcast_to(inverse, shape), dtype)
    return rademacher(key_sign, shape, dtype) * g ** inverse


def ball(key, d, p=2, shape=(), dtype=None):
    """Uniform in the unit Lp ball of dimension d, shape + (d,): generalized normal draws over
    (||g||_p ** p + E) ** (1 / p), E standard exponential (Barthe, Guedon, Mendelson, Naor)."""
    dtype = _float_dtype(dtype)
    d, shape = operator.index(d), _shape(shape)
    k1, k2 = split(key)
    g = generalized_normal(k1, p, shape + (d,), dtype)
    e = exponential(k2, shape, dtype)
    p = _param(p, dtype)
    return g / ((jnp.sum(jnp.abs(g) ** p, axis=-1) + e) ** (1 / p))[..., None]


# ---------------------------------------------------------------- counts
@_quiet
def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts as floats, by JAX's (and TensorFlow's) algorithm in p's float
    dtype: with q = min(p, 1 - p), geometric-sum inversion where n q <= 10, BTRS rejection
    (Hormann) above; nan for a negative or nan n or an invalid p, inf for an infinite n."""
    dtype = _float_dtype(dtype)
    shape = _result_shape("binomial", shape, n, p)
    prob = jnp.broadcast_to(_inexact(p), shape)
    count = jnp.broadcast_to(_param(n, prob.dtype), shape)
    p_lt_half = prob < 0.5
    q = jnp.where(p_lt_half, prob, 1 - prob)
    count_nan_or_neg = jnp.isnan(count) | (count < 0)
    count_inf = jnp.isinf(count)
    q_is_nan, q_lt_0 = jnp.isnan(q), q < 0
    q = jnp.where(q_is_nan | q_lt_0, np.asarray(0.01, q.dtype), q)
    use_inversion = count_nan_or_neg | (count * q <= 10)
    count = jnp.floor(count)
    def const(value):
        return np.asarray(value, q.dtype)

    small = _binomial_inversion(key, jnp.where(use_inversion, count, const(0)), q)
    large = _btrs(key, jnp.where(use_inversion, const(1e4), count),
                  jnp.where(use_inversion, const(0.5), q))
    samples = jnp.where(use_inversion, small, large)
    invalid = q_lt_0 | q_is_nan | count_nan_or_neg
    samples = jnp.where(invalid, const(np.nan), samples)
    samples = jnp.where(count_inf & ~invalid, const(np.inf), samples)
    keep = p_lt_half | count_nan_or_neg | q_is_nan | count_inf
    return jnp.where(keep, samples, count - samples).astype(dtype)


def _binomial_inversion(key, count, prob):
    """Binomial(count, prob) by inversion: the number of successes is one less than the number
    of geometric(prob) waiting times (trials to a success) it takes to exceed count trials."""
    shape, dtype = tuple(prob.shape), prob.dtype
    log_q = jnp.log1p(-prob)

    def going(state):
        return jnp.any(state[1] <= count)

    def step(state):
        key, geom_sum, num_geom = state
        subkey, key = split(key)
        num_geom = jnp.where(geom_sum <= count, num_geom + 1, num_geom)
        geom = jnp.ceil(jnp.log(uniform(subkey, shape, dtype)) / log_q)
        return key, geom_sum + geom, num_geom

    zeros = jnp.zeros(shape, dtype)
    _, _, num_geom = lax.while_loop(going, step, (key_data(key), zeros, zeros))
    return num_geom - 1


def _btrs(key, count, prob):
    """Hormann's transformed rejection with squeeze (BTRS), every element drawing until one
    of its draws is accepted (a later acceptance replaces an earlier one, as in JAX)."""
    shape, dtype = tuple(prob.shape), prob.dtype
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)
    mode_term = (m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
    tail_m, tail_count_m = _stirling_tail(m), _stirling_tail(count - m)

    def going(state):
        return ~jnp.all(state[2])

    def step(state):
        key, k_out, accepted = state
        key, key_u, key_v = split(key, 3)
        u = uniform(key_u, shape, dtype) - 0.5
        v = uniform(key_v, shape, dtype)
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        log_v = jnp.log(v * alpha / (a / (us * us) + b))
        bound = (mode_term + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
                 + tail_m + tail_count_m - _stirling_tail(k) - _stirling_tail(count - k))
        accept = accept1 | (~reject & (log_v <= bound))
        return key, jnp.where(accept, k, k_out), accepted | accept

    start = (key_data(key), jnp.full(shape, -1, dtype), jnp.zeros(shape, bool))
    return lax.while_loop(going, step, start)[1]


_STIRLING_TAIL = np.array([0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                           0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                           0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                           0.00833056343336287])


def _stirling_tail(k):
    """log k! - Stirling's approximation of it: tabulated for k <= 9, else the series. As in
    JAX 0.10.2, the series is evaluated at k clamped to [0, 9], so above 9 it is constant."""
    dtype = k.dtype
    tabulated = k <= 9
    k = jnp.clip(k, np.asarray(0, dtype), np.asarray(9, dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    table = jnp.take(_STIRLING_TAIL.astype(dtype), jnp.floor(k).astype(np.int32))
    return jnp.where(tabulated, table, approx)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts along p's last axis: a scan over the outcomes, each a binomial
    draw of what remains with the outcome's share of the remaining probability. `shape` is the
    whole result shape (p.shape by default), as in JAX."""
    dtype = _float_dtype(dtype)
    n, p = (np.asarray(v) if isinstance(v, (list, tuple)) else v for v in (n, p))
    kind = jnp.result_type(n, p)
    kind = kind if np.dtype(kind).kind == "f" else np.dtype(default_dtype("float"))
    n, p = _param(n, kind), _param(p, kind)
    shape = tuple(p.shape) if shape is None else _shape(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining == 0, np.asarray(1, kind), remaining)
    keys = split(key_data(key), ratios.shape[0])

    def draw(remainder, ratio_and_key):
        ratio, outcome_key = ratio_and_key
        count = binomial(outcome_key, remainder, jnp.clip(ratio, 0, 1), dtype=remainder.dtype)
        return remainder - count, count

    _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)
