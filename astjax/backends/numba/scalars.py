"""Scalars in generated code: dtypes as constructors, typed literals, casts, and the table of
elementwise rules (one scalar expression per primitive, see `ScalarOp`)."""
import math

import numpy as np

from astjax.core.dims import DimExpr

from astjax.core.avals import result_dtype
from astjax.core.ir import Lit
from astjax.core.primitives import RuleTable
from astjax.core.prims.elementwise import TRANSCENDENTAL

SCALAR = RuleTable("numba_scalar", "rule(op: ScalarOp) -> str",
                   covers=lambda prim: prim.kind == "elementwise")
PRANGE_MIN_SIZE = 65536  # below this the thread pool's start-up costs more than it saves
# A nest with none of these is bound by memory: measured here (2 cores), a parallel loop of
# adds over 131072 float32s took 32 us against 33 serial, 39 against 49 at 262144, while one
# with tanh and exp took 134 against 254 us already at 131072.
PRANGE_MIN_CHEAP = 262144
COSTLY = TRANSCENDENTAL | {"div", "rem", "sqrt", "rsqrt"}
NARROW_OK = {"float32", "float64", "int64", "bool"}  # dtypes Numba's arithmetic keeps


def dtype_text(dtype) -> str:
    """`np.float32`: the constructor of a dtype, as generated code spells it."""
    name = np.dtype(dtype).name
    return "np.bool_" if name == "bool" else f"np.{name}"


def scalar_literal(value, dtype) -> str:
    """A literal of exactly `dtype` (a bare Python int stays int64 in Numba: keep it bare)."""
    dtype = np.dtype(dtype)
    if isinstance(value, DimExpr):  # a size used as a value: read from the arguments
        return f"{dtype_text(dtype)}({value})"
    if dtype.kind == "b":
        return repr(bool(value))
    if dtype.kind in "iu":
        text = repr(int(value))
        return text if dtype.name == "int64" else f"{dtype_text(dtype)}({text})"
    if dtype.kind == "f":
        return f"{dtype_text(dtype)}({_float_text(float(value))})"
    if dtype.kind == "c":
        value = complex(value)
        return (f"{dtype_text(dtype)}(complex({_float_text(value.real)}, "
                f"{_float_text(value.imag)}))")
    raise NotImplementedError(f"{dtype.name} literals")


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "np.nan"
    if math.isinf(value):
        return "np.inf" if value > 0 else "-np.inf"
    return repr(value)


def cast(text: str, from_dtype, to_dtype) -> str:
    """`text` (a scalar of from_dtype) converted as NumPy's astype would."""
    from_dtype, to_dtype = np.dtype(from_dtype), np.dtype(to_dtype)
    if from_dtype == to_dtype:
        return text
    if to_dtype.kind == "b":
        return f"({text} != 0)"
    if from_dtype.kind == "c" and to_dtype.kind != "c":  # astype keeps the real part
        return f"{dtype_text(to_dtype)}(({text}).real)"
    return f"{dtype_text(to_dtype)}({text})"


class ScalarOp:
    """What an elementwise rule sees: operand texts (scalars), their avals, the result aval."""

    def __init__(self, eqn, texts: list, fe):
        self.eqn, self.texts, self.fe = eqn, texts, fe
        self.vector = True
        self.in_avals = [a.aval for a in eqn.ins]
        self.out = eqn.outs[0].aval
        self.params = eqn.params

    @property
    def dtype(self) -> np.dtype:
        return self.out.dtype

    def is_float(self, k: int = None) -> bool:
        aval = self.out if k is None else self.in_avals[k]
        return aval.dtype.kind == "f"

    def is_complex(self, k: int = None) -> bool:
        aval = self.out if k is None else self.in_avals[k]
        return aval.dtype.kind == "c"

    def arg(self, k: int, dtype=None) -> str:
        """Operand k as a scalar of `dtype` (default: the result's dtype)."""
        dtype = np.dtype(dtype or self.dtype)
        atom = self.eqn.ins[k]
        if isinstance(atom, Lit) and np.ndim(atom.value) == 0:
            return scalar_literal(np.asarray(atom.value).item(), dtype)
        return cast(self.texts[k], atom.aval.dtype, dtype)

    def common_dtype(self) -> np.dtype:
        """The dtype NumPy computes a comparison in (NEP 50: weak operands adapt)."""
        return result_dtype(*self.in_avals)[0]

    def fn(self, name: str, *args) -> str:
        return f"{name}({', '.join(args)})"


def scalar_expression(eqn, texts: list, fe, vector: bool = True) -> str:
    """The scalar expression of an elementwise equation; `vector` says whether it runs in a
    loop that vectorises (else a serial chain, where libm's latency beats vecmath's)."""
    rule = SCALAR[eqn.prim]
    op = ScalarOp(eqn, texts, fe)
    op.vector = vector
    expr = rule(op)
    if op.dtype.name not in NARROW_OK:  # Numba widens small ints to int64: narrow back
        expr = f"{dtype_text(op.dtype)}({expr})"
    return expr


