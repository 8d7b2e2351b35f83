"""Random numbers as JAX makes them: counter-based threefry2x32, keys that are data.

A key is a uint32 array of shape (2,) (`PRNGKey(0)`); functions of it are pure, so they work
under jit, vmap (a batch of keys) and grad like any other code: this module is library code
over lax's integer primitives, and the generated code shows the hash.

Bit-identical to JAX 0.10.2 (with `jax_threefry_partitionable`, its default) for the same key,
shape and dtype: `PRNGKey`, `split`, `fold_in`, `bits`, `uniform`. `normal` goes through
`lax.erf_inv`, whose last bits may differ from XLA's (agreement to ~1e-6).
"""
import math

import numpy as np

from . import lax
from . import numpy as jnp
from .config import default_dtype, x64_enabled

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Threefry's key schedule constant


def _u32(value):
    return np.uint32(value)


def _rotate_left(x, d: int):
    return lax.shift_left(x, _u32(d)) | lax.shift_right_logical(x, _u32(32 - d))


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 block cipher (20 rounds) of the counters (x1, x2) under the key
    (k1, k2): two uint32 arrays of the counters' shape."""
    ks = (k1, k2, k1 ^ k2 ^ _u32(_PARITY))
    x = [x1 + ks[0], x2 + ks[1]]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            first = x[0] + x[1]
            x = [first, _rotate_left(x[1], r) ^ first]
        x = [x[0] + ks[(i + 1) % 3], x[1] + ks[(i + 2) % 3] + _u32(i + 1)]
    return x[0], x[1]


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


key = PRNGKey  # keys are raw uint32 data here; key_data / wrap_key_data convert nothing


def key_data(keys):
    return keys


def wrap_key_data(key_bits, *, impl=None):
    return jnp.asarray(key_bits, dtype=np.uint32)


def _counters(shape):
    """(high, low) words of each element's flat index, as uint32 arrays of `shape`."""
    size = math.prod(shape)
    low = lax.convert_element_type(jnp.arange(size), np.uint32).reshape(shape)
    return jnp.zeros(shape, np.uint32), low


def split(key, num=2):
    """`num` new keys (an array of shape (num, 2), or shape + (2,) for a tuple)."""
    shape = tuple(num) if isinstance(num, (tuple, list)) else (num,)
    high, low = _counters(shape)
    bits1, bits2 = threefry2x32(key[0], key[1], high, low)
    return jnp.stack([bits1, bits2], axis=len(shape))


def fold_in(key, data):
    """A new key from `key` and an integer (its low 32 bits)."""
    word = lax.convert_element_type(jnp.asarray(data), np.uint32).reshape((1,))
    bits1, bits2 = threefry2x32(key[0], key[1], jnp.zeros((1,), np.uint32), word)
    return jnp.concatenate([bits1, bits2])


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers of `shape` (uint8/16/32/64; uint32 by default)."""
    dtype = np.dtype(dtype or np.uint32)
    shape = _shape(shape)
    high, low = _counters(shape)
    bits1, bits2 = threefry2x32(key[0], key[1], high, low)
    if dtype.itemsize == 8:
        wide = lax.convert_element_type(bits1, np.uint64)
        return lax.shift_left(wide, np.uint64(32)) | lax.convert_element_type(bits2, np.uint64)
    mixed = bits1 ^ bits2
    return mixed if dtype.itemsize == 4 else lax.convert_element_type(mixed, dtype)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Floats uniform in [minval, maxval): the mantissa filled with random bits."""
    dtype = _float_dtype(dtype)
    shape = _shape(shape)
    nbits, nmant = dtype.itemsize * 8, np.finfo(dtype).nmant
    raw = bits(key, shape, np.dtype(f"uint{nbits}"))
    mantissa = lax.shift_right_logical(raw, np.asarray(nbits - nmant, raw.dtype))
    # exactly bitcast(mantissa | bits of 1.0) - 1: the mantissa scaled by 2**-nmant
    floats = lax.convert_element_type(mantissa, dtype) * np.asarray(2.0 ** -nmant, dtype)
    lo, hi = np.asarray(minval, dtype), np.asarray(maxval, dtype)
    if dtype.itemsize == 4:  # XLA fuses the scaling into one FMA: float64 rounds like it
        wide = lax.convert_element_type(floats, np.float64)
        scaled = lax.convert_element_type(wide * np.float64(hi - lo) + np.float64(lo), dtype)
    else:
        scaled = floats * (hi - lo) + lo
    return lax.max(lo, scaled)


def normal(key, shape=(), dtype=None):
    """Standard normal samples: sqrt(2) * erf_inv of a uniform in (-1, 1)."""
    dtype = _float_dtype(dtype)
    lo = np.nextafter(np.asarray(-1.0, dtype), np.asarray(0.0, dtype))
    u = uniform(key, shape, dtype, lo, 1.0)
    return np.asarray(np.sqrt(2), dtype) * lax.erf_inv(u)


def _float_dtype(dtype):
    dtype = np.dtype(dtype) if dtype is not None else np.dtype(default_dtype("float"))
    if dtype.kind != "f" or dtype.itemsize not in (4, 8):
        raise TypeError(f"astjax.random samples float32 or float64, not {dtype.name}")
    return dtype


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
