"""XLA lowering of threefry2x32: the cipher's rounds as StableHLO uint32 operations on the
broadcast shape (XLA fuses them into one loop)."""
import numpy as np

from astjax.core.prims.random import threefry_rounds

from .emit import LOWER

U32 = np.dtype(np.uint32)


class _StableHLOOps:
    def __init__(self, body, shape):
        self.body, self.shape = body, shape

    def add(self, a, b):
        return self.body.binary("stablehlo.add", a, b)

    def xor(self, a, b):
        return self.body.binary("stablehlo.xor", a, b)

    def rotate_left(self, a, bits):
        high = self.body.binary("stablehlo.shift_left", a, self.constant(bits))
        low = self.body.binary("stablehlo.shift_right_logical", a, self.constant(32 - bits))
        return self.body.binary("stablehlo.or", high, low)

    def constant(self, c):
        return self.body.constant(c, U32, self.shape)


@LOWER.register("threefry2x32")
def _threefry(body, eqn, *words):
    shape = tuple(eqn.outs[0].aval.shape)
    words = body.coerce(list(words), shape, U32)
    return list(threefry_rounds(*words, _StableHLOOps(body, shape)))
