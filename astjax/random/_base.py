"""Keys, the cipher, and the samplers JAX programs use most (the package docstring says
which agree with JAX bit for bit)."""
import math

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..config import default_dtype, x64_enabled
from ..core.bind import bind
from ..core.prims.elementwise import part_dtype
from .keys import IMPL, KeyArray, key_data, like

def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) of the counters (x1, x2) under the key
    (k1, k2), all uint32 and broadcast together: two uint32 arrays (one primitive)."""
    return tuple(bind("threefry2x32", k1, k2, x1, x2))


# ---------------------------------------------------------------- keys
def PRNGKey(seed):
    """A key from an integer seed: (high 32 bits, low 32 bits) of the seed as a 64-bit
    integer (as a 32-bit one, whose high word is 0, unless x64 is enabled)."""
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        wide = seed & 0xFFFFFFFFFFFFFFFF if x64_enabled() else seed & 0xFFFFFFFF
        return jnp.array([wide >> 32, wide & 0xFFFFFFFF], dtype=np.uint32)
    seed = jnp.asarray(seed)
    low = lax.convert_element_type(seed, np.uint32)
    if seed.dtype.itemsize == 8:
        high = lax.convert_element_type(lax.shift_right_logical(seed, np.asarray(32, seed.dtype)),
                                        np.uint32)
    else:
        high = jnp.zeros_like(low)
    return jnp.stack([high, low])


def key(seed, *, impl=None):
    """A typed key (`key<fry>`, shape ()) from an integer seed: PRNGKey's data, typed."""
    _check_impl(impl)
    return KeyArray(PRNGKey(seed))


def wrap_key_data(key_bits, *, impl=None):
    """Typed keys around uint32 key data of shape (..., 2)."""
    _check_impl(impl)
    return KeyArray(jnp.asarray(key_bits, dtype=np.uint32))


def key_impl(keys) -> str:
    return IMPL


def clone(keys):
    """The keys themselves (astjax's keys are values, never consumed)."""
    return keys


def _check_impl(impl):
    if impl not in (None, IMPL, "threefry"):
        raise ValueError(f"astjax.random implements the {IMPL} PRNG, not {impl!r}")


def _words(keys):
    """The two uint32 words of one key, raw or typed."""
    data = key_data(keys)
    if tuple(data.shape) != (2,):
        raise TypeError(f"expected a single key (uint32 data of shape (2,)), got shape "
                        f"{tuple(data.shape)}: split the keys first or vmap over them")
    return data[0], data[1]


def _counters(shape):
    """(high, low) words of each element's flat index, as uint32 arrays of `shape`."""
    size = math.prod(shape)
    low = lax.convert_element_type(jnp.arange(size), np.uint32).reshape(shape)
    return jnp.zeros(shape, np.uint32), low


def split(key, num=2):
    """`num` new keys (an array of shape (num, 2), or shape + (2,) for a tuple)."""
    shape = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    high, low = _counters(shape)
    bits1, bits2 = threefry2x32(*_words(key), high, low)
    return like(key, jnp.stack([bits1, bits2], axis=len(shape)))


def fold_in(key, data):
    """A new key from `key` and an integer (its low 32 bits)."""
    word = lax.convert_element_type(jnp.asarray(data), np.uint32).reshape((1,))
    bits1, bits2 = threefry2x32(*_words(key), jnp.zeros((1,), np.uint32), word)
    return like(key, jnp.concatenate([bits1, bits2]))


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers of `shape` (uint8/16/32/64; by default uint64 with
    jax_enable_x64, else uint32, as in JAX)."""
    dtype = np.dtype(dtype or default_dtype("uint"))
    shape = _shape(shape)
    high, low = _counters(shape)
    return joined_bits(*threefry2x32(*_words(key), high, low), dtype)


def joined_bits(bits1, bits2, dtype):
    """The cipher's two words as random bits of the unsigned `dtype`: joined for 64 bits,
    xor-ed (and narrowed) for fewer."""
    if dtype.itemsize == 8:
        wide = lax.convert_element_type(bits1, np.uint64)
        return lax.shift_left(wide, np.uint64(32)) | lax.convert_element_type(bits2, np.uint64)
    mixed = bits1 ^ bits2
    return mixed if dtype.itemsize == 4 else lax.convert_element_type(mixed, dtype)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Floats uniform in [minval, maxval): the mantissa filled with random bits."""
    dtype = _float_dtype(dtype)
    raw = bits(key, _shape(shape), np.dtype(f"uint{dtype.itemsize * 8}"))
    return _uniform_from_bits(raw, dtype, minval, maxval)


def _uniform_from_bits(raw, dtype, minval, maxval):
    """uniform's floats from its random bits (uint32 for float32, uint64 for float64)."""
    nbits, nmant = dtype.itemsize * 8, np.finfo(dtype).nmant
    mantissa = lax.shift_right_logical(raw, np.asarray(nbits - nmant, raw.dtype))
    # exactly bitcast(mantissa | bits of 1.0) - 1: the mantissa scaled by 2**-nmant
    floats = lax.convert_element_type(mantissa, dtype) * np.asarray(2.0 ** -nmant, dtype)
    lo, hi = _as(minval, dtype), _as(maxval, dtype)
    if dtype.itemsize == 4:  # XLA fuses the scaling into one FMA: float64 rounds like it
        wide = lax.convert_element_type(floats, np.float64)
        scaled = lax.convert_element_type(wide * _as(hi - lo, np.float64) + _as(lo, np.float64),
                                          dtype)
    else:
        scaled = floats * (hi - lo) + lo
    return lax.max(lo, scaled)


def _as(value, dtype):
    """value (a Python number, array or traced value) as an array of dtype."""
    if isinstance(value, (int, float, np.number, np.ndarray)):
        return np.asarray(value, dtype)
    return lax.convert_element_type(value, dtype)


def _result_shape(name, shape, *params):
    """JAX's sample shape: the parameters' broadcast shape when shape is None; otherwise shape,
    which the parameters must broadcast to."""
    shapes = [tuple(jnp.shape(p)) for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    shape = _shape(shape)
    if shapes and tuple(np.broadcast_shapes(shape, *shapes)) != shape:
        raise ValueError(f"{name}: parameter shapes {shapes} must broadcast to the shape "
                         f"argument {shape}")
    return shape


def _param(value, dtype):
    """A parameter (number, list, array or traced value) as an array of dtype."""
    return _as(np.asarray(value) if isinstance(value, (list, tuple)) else value, dtype)


def normal(key, shape=(), dtype=None):
    """Standard normal samples: sqrt(2) * erf_inv of a uniform in (-1, 1); for a complex dtype
    (re + i im) / sqrt(2) from two keys, as JAX."""
    if dtype is not None and np.dtype(dtype).kind == "c":
        part = part_dtype(dtype)
        key_re, key_im = split(key)
        re = normal(key_re, shape, part).astype(dtype)
        im = normal(key_im, shape, part).astype(dtype)
        return (re + 1j * im) / np.asarray(np.sqrt(2), dtype)
    dtype = _float_dtype(dtype)
    lo = np.nextafter(np.asarray(-1.0, dtype), np.asarray(0.0, dtype))
    u = uniform(key, shape, dtype, lo, 1.0)
    return np.asarray(np.sqrt(2), dtype) * lax.erf_inv(u)


# ---------------------------------------------------------------- integers and choices
def randint(key, shape, minval, maxval, dtype=None):
    """Integers in [minval, maxval): two words of random bits per value, reduced modulo the
    span (JAX's algorithm, bit for bit)."""
    dtype = np.dtype(dtype or default_dtype("int"))
    if dtype.kind not in "iu" or dtype.itemsize * 8 not in (8, 16, 32, 64):
        raise TypeError(f"randint samples 8- to 64-bit integers, not {dtype.name}")
    shape = _shape(shape)
    info = np.iinfo(dtype)
    if info.bits < 32:  # sampled in 32 bits (less bias), as JAX does, then narrowed
        low = jnp.clip(jnp.asarray(minval).astype(np.int32), int(info.min), int(info.max))
        high = jnp.clip(jnp.asarray(maxval).astype(np.int32), int(info.min), int(info.max) + 1)
        return randint(key, shape, low, high, np.int32).astype(dtype)
    minval, maxval = _integer(minval), _integer(maxval)
    top = jnp.asarray(np.iinfo(dtype).max, dtype)
    maxval_out_of_range = maxval > _clip_to(top, maxval.dtype)
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    nbits = dtype.itemsize * 8
    unsigned = np.dtype(f"uint{nbits}")
    k1, k2 = split(key)
    higher, lower = bits(k1, shape, unsigned), bits(k2, shape, unsigned)
    span = lax.convert_element_type(maxval - minval, unsigned)
    span = jnp.where(maxval <= minval, np.asarray(1, unsigned), span)
    span = jnp.where(maxval_out_of_range & (maxval > minval), span + np.asarray(1, unsigned), span)
    multiplier = _rem(np.asarray(2 ** (nbits // 2), unsigned) + jnp.zeros_like(span), span)
    multiplier = _rem(multiplier * multiplier, span)
    offset = _rem(higher, span) * multiplier + _rem(lower, span)
    offset = _rem(offset, span)
    return minval + lax.convert_element_type(offset, dtype)


def _rem(x, span):
    """x % span with XLA's meaning of a zero span (the whole range wrapped to 0): x itself."""
    zero = span == 0
    return jnp.where(zero, x, lax.rem(x, jnp.where(zero, np.asarray(1, span.dtype), span)))


def _integer(value):
    value = jnp.asarray(value)
    return value if value.dtype.kind in "iu" else value.astype(default_dtype("int"))


def _clip_to(value, dtype):
    """value in dtype, clipped to the range both dtypes share (not wrapped)."""
    dtype = np.dtype(dtype)
    low = max(np.iinfo(dtype).min, np.iinfo(value.dtype).min)
    high = min(np.iinfo(dtype).max, np.iinfo(value.dtype).max)
    return jnp.clip(value, np.asarray(low, value.dtype), np.asarray(high, value.dtype)).astype(dtype)


def bernoulli(key, p=0.5, shape=None):
    """True with probability p."""
    weak = isinstance(p, (int, float))  # a Python number takes the default float dtype
    p = jnp.asarray(p)
    if weak or p.dtype.kind != "f":
        p = p.astype(default_dtype("float"))
    shape = tuple(p.shape) if shape is None else _shape(shape)
    return uniform(key, shape, p.dtype) < p


def rademacher(key, shape=(), dtype=None):
    """-1 or 1 with equal probability."""
    dtype = np.dtype(dtype or default_dtype("int"))
    return (2 * bernoulli(key, 0.5, shape).astype(dtype) - 1).astype(dtype)


def permutation(key, x, axis=0, independent=False):
    """A random permutation of range(x) (for an integer x) or of x along `axis`."""
    if isinstance(x, (int, np.integer)):
        return _shuffle(key, jnp.arange(int(x)), 0)
    x = jnp.asarray(x)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, order, axis=axis, mode="promise_in_bounds")


def _shuffle(key, x, axis):
    """Sorted by random 32-bit keys, as many rounds as make collisions negligible."""
    for _ in range(_shuffle_rounds(math.prod(x.shape))):
        key, subkey = split(key)
        order = jnp.argsort(bits(subkey, tuple(x.shape), np.uint32), axis=axis, stable=True)
        x = jnp.take_along_axis(x, order, axis=axis, mode="promise_in_bounds")
    return x


def _integer_cube_root(n: int) -> int:
    root = round(n ** (1 / 3))
    while root ** 3 > n:
        root -= 1
    while (root + 1) ** 3 <= n:
        root += 1
    return root


# The largest size each count of rounds serves: JAX's count, ceil(3 log(size) / log(M)) with
# M = 2^32 - 1, is r for sizes up to M^(r/3)
_ROUND_LIMITS = [_integer_cube_root(int(np.iinfo(np.uint32).max) ** r) for r in range(4)]


def _shuffle_rounds(size) -> int:
    """JAX's count of sorting rounds for `size` elements, decided by comparisons: a symbolic
    size keeps only the class it falls in (up to 1,625 elements one round, up to 2,642,245
    two), so another length in the class compiles nothing."""
    rounds = 0
    while rounds < len(_ROUND_LIMITS) and size > _ROUND_LIMITS[rounds]:
        rounds += 1
    return rounds


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Samples of `a` (an array, or range(a) for an integer), uniformly or with weights p."""
    arr = jnp.asarray(a)
    n = int(a) if arr.ndim == 0 else arr.shape[axis % arr.ndim]
    shape = _shape(shape)
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ValueError(f"cannot take a larger sample ({draws}) than the population ({n}) "
                         "when replace=False")
    if p is None:
        if replace:
            index = randint(key, shape, 0, n)
            result = index if arr.ndim == 0 else jnp.take(arr, index, axis=axis)
        else:
            whole = permutation(key, n if arr.ndim == 0 else arr, axis)
            result = jnp.take(whole, jnp.arange(draws), axis=0 if arr.ndim == 0 else axis)
    else:
        p = jnp.asarray(p)
        p = p if p.dtype.kind == "f" else p.astype(default_dtype("float"))
        if replace:
            total = jnp.cumsum(p)
            r = total[-1] * (1 - uniform(key, shape, total.dtype))
            index = jnp.searchsorted(total, r).astype(default_dtype("int"))
        else:
            g = gumbel(key, (n,), p.dtype) + jnp.log(p)
            index = jnp.argsort(-g, stable=True)[:draws].astype(default_dtype("int"))
        result = index if arr.ndim == 0 else jnp.take(arr, index, axis=axis)
    if arr.ndim == 0:
        return result.reshape(shape)
    axis = axis % arr.ndim
    return result.reshape(arr.shape[:axis] + shape + arr.shape[axis + 1:])


# ---------------------------------------------------------------- one function of a uniform
def exponential(key, shape=(), dtype=None):
    u = uniform(key, shape, _float_dtype(dtype))
    return -jnp.log1p(-u)


def gumbel(key, shape=(), dtype=None):
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return -jnp.log(-jnp.log(u))


def laplace(key, shape=(), dtype=None):
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, -1.0 + np.finfo(dtype).epsneg, 1.0)
    return jnp.sign(u) * jnp.log1p(-jnp.abs(u))


def logistic(key, shape=(), dtype=None):
    dtype = _float_dtype(dtype)
    x = uniform(key, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return jnp.log(x) - jnp.log1p(-x)


def cauchy(key, shape=(), dtype=None):
    dtype = _float_dtype(dtype)
    u = uniform(key, shape, dtype, np.finfo(dtype).eps, 1.0)
    return jnp.tan(np.asarray(np.pi, dtype) * (u - np.asarray(0.5, dtype)))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal samples conditioned on lower < x < upper (inverse CDF of a uniform)."""
    dtype = _float_dtype(dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    shape = _shape(shape)
    sqrt2 = np.asarray(np.sqrt(2), dtype)
    lower, upper = _as(lower, dtype), _as(upper, dtype)
    a, b = lax.erf(lower / sqrt2), lax.erf(upper / sqrt2)
    out = sqrt2 * lax.erf_inv(uniform(key, shape, dtype, a, b))
    return jnp.clip(out, _step(lax.stop_gradient(lower), 1, dtype),
                    _step(lax.stop_gradient(upper), -1, dtype))


def _step(value, direction, dtype):
    """The next float after value toward +inf (direction 1) or -inf: exact for concrete values
    (np.nextafter); one ulp's worth for traced ones (there is no nextafter primitive yet)."""
    if isinstance(value, (int, float, np.number, np.ndarray)):
        return np.nextafter(np.asarray(value, dtype), np.asarray(direction * np.inf, dtype))
    info = np.finfo(dtype)
    ulp = jnp.maximum(jnp.abs(value) * np.asarray(info.eps, dtype), np.asarray(info.tiny, dtype))
    return value + direction * ulp


def categorical(key, logits, axis=-1, shape=None, replace=True):
    """Indices drawn with probabilities softmax(logits) along `axis` (Gumbel-max); without
    replacement, the top k of one Gumbel-perturbed draw (the Gumbel-top-k trick), as JAX."""
    logits = jnp.asarray(logits)
    axis = axis % logits.ndim
    batch = tuple(logits.shape[:axis] + logits.shape[axis + 1:])
    shape = batch if shape is None else _shape(shape)
    if shape[len(shape) - len(batch):] != batch:
        raise ValueError(f"categorical: shape {shape} must end with the batch shape {batch}")
    prefix = shape[:len(shape) - len(batch)]
    if not replace:
        k = math.prod(prefix)
        if k > logits.shape[axis]:
            raise ValueError(f"Number of samples without replacement ({k}) cannot exceed "
                             f"number of categories ({logits.shape[axis]}).")
        noisy = logits + gumbel(key, tuple(logits.shape), logits.dtype)
        _, indices = lax.top_k(jnp.moveaxis(noisy, axis, -1), k)  # batch + (k,)
        return jnp.moveaxis(indices, -1, 0).reshape(shape)
    wide = list(shape[len(shape) - len(batch):])
    wide.insert(axis, logits.shape[axis])
    noise = gumbel(key, tuple(prefix) + tuple(wide), logits.dtype)
    expanded = logits.reshape((1,) * len(prefix) + tuple(logits.shape))
    return jnp.argmax(noise + expanded, axis=len(prefix) + axis)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """mean + A @ z with A A^T = cov and z standard normal; A is cov's Cholesky factor, or
    U sqrt(S) of its SVD (method="svd"), or V sqrt(W) of its eigendecomposition ("eigh")."""
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = _float_dtype(dtype)
    mean, cov = _as(mean, dtype), _as(cov, dtype)
    n = mean.shape[-1]
    if shape is None:
        shape = np.broadcast_shapes(tuple(mean.shape[:-1]), tuple(cov.shape[:-2]))
    shape = _shape(shape)
    z = normal(key, shape + (n,), dtype)
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = _cholesky(cov)
    return mean + jnp.einsum("...ij,...j->...i", factor, z)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """An n x m matrix (m = n by default) with orthonormal columns (rows if n < m), uniformly
    distributed (Haar measure): the Q of a Gaussian matrix's QR factorisation whose R has a
    positive diagonal."""
    dtype = _float_dtype(dtype)
    m = n if m is None else int(m)
    z = normal(key, _shape(shape) + (max(n, m), min(n, m)), dtype)
    q = _orthonormal_columns(z)
    return jnp.swapaxes(q, -1, -2) if n < m else q


def _cholesky(a):
    """The lower Cholesky factor, column by column (n is static and small here)."""
    n = a.shape[-1]
    columns = []
    for j in range(n):
        row = [columns[k][..., j] for k in range(j)]  # L[j, k] for k < j
        s = a[..., j, j] - sum((r * r for r in row), jnp.zeros_like(a[..., j, j]))
        d = jnp.sqrt(s)
        below = a[..., :, j] - sum((columns[k] * row[k][..., None] for k in range(j)),
                                   jnp.zeros_like(a[..., :, j]))
        mask = (jnp.arange(n) > j)
        columns.append(jnp.where(mask, below / d[..., None], jnp.where(jnp.arange(n) == j,
                                                                       d[..., None], 0)))
    return jnp.stack(columns, axis=-1)


def _orthonormal_columns(z):
    """Modified Gram-Schmidt: the Q of z = QR with R's diagonal positive."""
    n = z.shape[-1]
    q = []
    for j in range(n):
        v = z[..., :, j]
        for u in q:
            v = v - jnp.sum(u * v, axis=-1, keepdims=True) * u
        q.append(v / jnp.sqrt(jnp.sum(v * v, axis=-1, keepdims=True)))
    return jnp.stack(q, axis=-1)


# ---------------------------------------------------------------- rejection samplers
def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts by JAX's algorithm and draws, in float32 whatever the dtypes:
    Knuth's product of uniforms below 10, transformed rejection (Hormann's PTRS) above, each
    from `key` itself."""
    dtype = np.dtype(dtype or default_dtype("int"))
    lam = _as(lam, np.float32)
    shape = tuple(jnp.shape(lam)) if shape is None else _shape(shape)
    lam = jnp.broadcast_to(lam, shape)
    knuth = jnp.isnan(lam) | (lam < 10)
    small = _poisson_knuth(key, jnp.where(knuth, lam, np.float32(0)), shape, dtype)
    large = _poisson_rejection(key, jnp.where(knuth, np.float32(1e5), lam), shape)
    counts = jnp.where(knuth, small, large.astype(dtype))
    return jnp.where(lam == 0, jnp.zeros_like(counts), counts)


def _poisson_knuth(key, lam, shape, dtype):
    """k - 1 for the first k whose product of k uniforms is below exp(-lam)."""
    def going(state):
        return jnp.any(state[2] > -lam)

    def step(state):
        key, k, log_prod = state
        key, sub = split(key)
        k = jnp.where(log_prod > -lam, k + 1, k)
        return key, k, log_prod + jnp.log(uniform(sub, shape, np.float32))

    start = (key, jnp.zeros(shape, dtype), jnp.zeros(shape, np.float32))
    _, k, _ = lax.while_loop(going, step, start)
    return k - 1


def _poisson_rejection(key, lam, shape):
    """Hormann's PTRS: each round proposes k for every element; an accepted proposal
    replaces the element's count (a later acceptance too, as JAX's loop has it)."""
    log_lam = jnp.log(lam)
    b = 0.931 + 2.53 * jnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def going(state):
        return ~jnp.all(state[2])

    def step(state):
        key, k_out, accepted = state
        key, ku, kv = split(key, 3)
        u = uniform(ku, shape, np.float32) - 0.5
        v = uniform(kv, shape, np.float32)
        u_shifted = 0.5 - jnp.abs(u)
        k = jnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = jnp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return key, jnp.where(accept, k, k_out), accepted | accept

    start = (key, jnp.full(shape, -1, np.float32), jnp.zeros(shape, bool))
    _, k, _ = lax.while_loop(going, step, start)
    return k


def _float_dtype(dtype):
    dtype = np.dtype(dtype) if dtype is not None else np.dtype(default_dtype("float"))
    if dtype.kind != "f" or dtype.itemsize not in (4, 8):
        raise TypeError(f"astjax.random samples float32 or float64, not {dtype.name}")
    return dtype


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
