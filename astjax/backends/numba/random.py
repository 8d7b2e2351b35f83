"""Lowerings of threefry2x32: the cipher's rounds as uint32 equations that join the loop nest
of the counters they hash and of the floats made from the bits (one fused, vectorising loop
from `iota` to `uniform`'s result); whole-array statements where a shape is known only at run
time."""
import numpy as np

from astjax.core.avals import AVal
from astjax.core.ir import Eqn, Lit, Var
from astjax.core.prims.elementwise import broadcast_shapes
from astjax.core.prims.random import threefry_rounds

from .emit import INLINE, LOWER, tuple_text

U32 = np.dtype(np.uint32)


class _EquationOps:
    """The cipher's uint32 arithmetic as core-form equations (`eqns`), for the block to emit."""

    def __init__(self, eqn):
        self.eqn, self.eqns = eqn, []

    def _emit(self, prim, *operands, **params):
        shape = broadcast_shapes(*(tuple(a.aval.shape) for a in operands))
        out = Var(AVal(shape, U32), "threefry")
        self.eqns.append(Eqn([out], prim, list(operands), params, self.eqn.loc, self.eqn.note))
        return out

    def add(self, a, b):
        return self._emit("add", a, b)

    def xor(self, a, b):
        return self._emit("bitwise_xor", a, b)

    def rotate_left(self, a, bits):
        high = self._emit("shift_left", a, Lit(np.uint32(bits)))
        return self._emit("bitwise_or", high, self._emit("shift_right_logical", a,
                                                         Lit(np.uint32(32 - bits))))

    def constant(self, c):
        return Lit(np.uint32(c))


def _inline(fe, eqn) -> bool:
    if any(d < 0 for atom in eqn.ins for d in atom.aval.shape):
        return False  # a run-time length: the whole-array lowering below
    ops = _EquationOps(eqn)
    words = threefry_rounds(*eqn.ins, ops)
    for out, word in zip(eqn.outs, words):
        ops.eqns.append(Eqn([out], "convert", [word], {"dtype": "uint32"}, eqn.loc, eqn.note))
    fe.expand(ops.eqns)
    return True


INLINE["threefry2x32"] = _inline


class _TextOps:
    """The cipher's uint32 arithmetic as statements on whole uint32 arrays of one shape."""

    def __init__(self, fe, lines):
        self.fe, self.lines = fe, lines

    def _bind(self, expression):
        name = self.fe.fresh("threefry")
        self.lines.append(f"{name} = {expression}")
        return name

    def add(self, a, b):
        return self._bind(f"{a} + {b}")

    def xor(self, a, b):
        return self._bind(f"{a} ^ {b}")

    def rotate_left(self, a, bits):
        return self._bind(f"({a} << np.uint32({bits})) | ({a} >> np.uint32({32 - bits}))")

    def constant(self, c):
        return f"np.uint32({c})"


def _shape_text(ins, eqn) -> str:
    """The broadcast shape as text: each run-time length read off an operand that has it."""
    out = eqn.outs[0].aval.shape
    texts = []
    for j, d in enumerate(out):
        if d >= 0:
            texts.append(str(d))
            continue
        for name, atom in zip(ins, eqn.ins):
            k = j - (len(out) - len(atom.aval.shape))
            if k >= 0 and atom.aval.shape[k] < 0:
                texts.append(f"{name}.shape[{k}]")
                break
    return tuple_text(texts)


@LOWER.register("threefry2x32")
def _threefry(fe, eqn, ins, outs):
    shape = _shape_text(ins, eqn)
    lines, words = [], []
    for name, atom in zip(ins, eqn.ins):
        full = fe.fresh("words")
        if not atom.aval.shape:
            lines.append(f"{full} = np.full({shape}, np.uint32({name}))")
        else:
            lines.append(f"{full} = np.ascontiguousarray(np.broadcast_to({name}, {shape}))")
        words.append(full)
    results = threefry_rounds(*words, _TextOps(fe, lines))
    return lines + [f"{o} = {r}" for o, r in zip(outs, results)]
