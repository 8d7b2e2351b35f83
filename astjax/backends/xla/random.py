"""XLA lowering of threefry2x32: the cipher's 20 rounds as a `stablehlo.while` of five trips
of four rounds each, on the broadcast shape, as JAX lowers it for the CPU.

Unrolled, the rounds are one chain of ~100 cheap integer operations, and XLA copies a cheap
producer into every consumer's fusion: JAX's mnist_vae example, whose sampled images are cut
into 100 slices, compiled each slice with its own copy of the cipher (25 s, against JAX's 3).
The loop is a fusion boundary: the bits are computed once."""
import numpy as np

from astjax.core.prims.random import PARITY, ROTATIONS

from .control import while_op
from .emit import LOWER, i64_array

U32 = np.dtype(np.uint32)


@LOWER.register("threefry2x32")
def _threefry(body, eqn, *words):
    shape = tuple(eqn.outs[0].aval.shape)
    key_shape = np.broadcast_shapes(*(w.shape for w in words[:2]))
    k1, k2 = body.coerce(list(words[:2]), key_shape, U32)
    x1, x2 = body.coerce(list(words[2:]), shape, U32)
    k3 = body.binary("stablehlo.xor", body.binary("stablehlo.xor", k1, k2),
                     body.constant(PARITY, U32, key_shape))
    x = [body.binary("stablehlo.add", x1, body.broadcast(k1, shape)),
         body.binary("stablehlo.add", x2, body.broadcast(k2, shape))]
    rotations = [body.constant(np.asarray(r, U32), U32) for r in ROTATIONS]
    start = [body.constant(0, U32)] + x + [k2, k3, k1] + rotations  # (keys taken in turn)
    outs = while_op(body, start, lambda r, v: r.compare(v[0], r.constant(5, U32), "LT"),
                    lambda r, v: _four_rounds(r, v, shape), hint="threefry")
    return outs[1:3]


def _four_rounds(r, values, shape):
    """One trip: four rounds with the first rotation table, then the next key words (and the
    trip's count) added; the keys and the tables turn for the next trip."""
    i, x0, x1, ka, kb, kc, rot, other = values
    for j in range(4):
        amount = r.broadcast(r.reshape(r.op1("stablehlo.slice", [rot], (1,), U32,
                                             f"start_indices = {i64_array([j])}, "
                                             f"limit_indices = {i64_array([j + 1])}, "
                                             f"strides = {i64_array([1])}"), ()), shape)
        x0 = r.binary("stablehlo.add", x0, x1)
        left = r.binary("stablehlo.shift_left", x1, amount)
        right = r.binary("stablehlo.shift_right_logical", x1, r.binary(
            "stablehlo.subtract", r.constant(32, U32, shape), amount))
        x1 = r.binary("stablehlo.xor", r.binary("stablehlo.or", left, right), x0)
    count = r.binary("stablehlo.add", i, r.constant(1, U32))
    x0 = r.binary("stablehlo.add", x0, r.broadcast(ka, shape))
    x1 = r.binary("stablehlo.add", r.binary("stablehlo.add", x1, r.broadcast(kb, shape)),
                  r.broadcast(count, shape))
    return [count, x0, x1, kb, kc, ka, other, rot]
