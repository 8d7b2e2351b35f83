"""Random-bit primitives: threefry2x32, the counter-based block cipher behind JAX's keys.

The cipher's schedule (`threefry_rounds`) is written once, over an `ops` argument doing uint32
arithmetic, so the NumPy implementation below and the Numba backend's loop-nest expansion run
the same 20 rounds. The XLA lowering rolls them into a loop of five trips over the same
ROTATIONS and PARITY (backends/xla/random.py: written out, XLA copied them into every
consumer's fusion)."""
import numpy as np

from ..avals import AVal
from ..primitives import define
from .elementwise import broadcast_shapes

ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
PARITY = 0x1BD11BDA  # Threefry's key schedule constant


def threefry_rounds(k1, k2, x1, x2, ops):
    """Threefry-2x32 (20 rounds) of the counters (x1, x2) under the key (k1, k2).

    `ops` supplies `add(a, b)`, `xor(a, b)`, `rotate_left(a, bits)` and `constant(c)` on uint32
    values of whatever representation a stage uses (arrays, equations, StableHLO values)."""
    ks = (k1, k2, ops.xor(ops.xor(k1, k2), ops.constant(PARITY)))
    x = [ops.add(x1, ks[0]), ops.add(x2, ks[1])]
    for i in range(5):
        for r in ROTATIONS[i % 2]:
            first = ops.add(x[0], x[1])
            x = [first, ops.xor(ops.rotate_left(x[1], r), first)]
        x = [ops.add(x[0], ks[(i + 1) % 3]),
             ops.add(ops.add(x[1], ks[(i + 2) % 3]), ops.constant(i + 1))]
    return x[0], x[1]


class NumpyOps:
    """uint32 arithmetic on NumPy arrays (wrapping, as the cipher wants)."""

    @staticmethod
    def add(a, b):
        return np.add(a, b, dtype=np.uint32)

    @staticmethod
    def xor(a, b):
        return np.bitwise_xor(a, b, dtype=np.uint32)

    @staticmethod
    def rotate_left(a, bits: int):
        return (a << np.uint32(bits)) | (a >> np.uint32(32 - bits))

    @staticmethod
    def constant(c: int):
        return np.uint32(c)


def _threefry(k1, k2, x1, x2):
    shape = np.broadcast_shapes(*(np.shape(v) for v in (k1, k2, x1, x2)))
    words = [np.broadcast_to(np.asarray(v, np.uint32), shape) for v in (k1, k2, x1, x2)]
    with np.errstate(over="ignore"):
        return [np.asarray(out, np.uint32) for out in threefry_rounds(*words, NumpyOps)]


def _threefry_abstract(*avals):
    if any(np.dtype(a.dtype) != np.uint32 for a in avals):
        raise TypeError("threefry2x32 takes uint32 keys and counters, not "
                        + ", ".join(np.dtype(a.dtype).name for a in avals))
    shape = broadcast_shapes(*(tuple(a.shape) for a in avals))
    return [AVal(shape, np.dtype(np.uint32)), AVal(shape, np.dtype(np.uint32))]


define("threefry2x32", _threefry, _threefry_abstract, kind="random", multiple_results=True)
