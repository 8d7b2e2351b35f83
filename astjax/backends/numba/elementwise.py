"""Numba lowerings of the elementwise primitives: each a scalar expression (see ScalarOp).

Floating-point math calls `vecmath` (branch-free, inlined, so fused loops vectorise; Numba's
own `np.exp` & co. are scalar libm calls).  Operands are cast to the dtype the operation
computes in (by default the result's), so Numba's own promotion rules never decide a dtype.
"""
import numpy as np

from astjax.core.prims.elementwise import part_dtype

from .emit import SCALAR, dtype_text, scalar_literal

# primitive -> vecmath function, for float operands
VECMATH_UNARY = {
    "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log1p": "log1p",
    "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
    "logistic": "logistic", "erf": "erf", "erfc": "erfc", "erf_inv": "erfinv", "cbrt": "cbrt",
    "sqrt": "sqrt",
}
VECMATH_BINARY = {"atan2": "arctan2", "logaddexp": "logaddexp"}


# In serial code (unrolled values, loop-carried scalars) nothing vectorises, and libm's scalar
# functions (Numba's np.*) have half the latency of vecmath's branch-free ones.
SCALAR_LIBM = {"exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh",
               "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"}


def _vecmath_unary(fn):
    def rule(op):
        if op.is_complex():  # vecmath is real-only: Numba's complex (cmath) functions
            return f"np.{fn}({op.arg(0)})"
        if not op.vector and fn in SCALAR_LIBM and op.is_float():
            return f"np.{fn}({op.arg(0)})"
        return f"vecmath.{fn}({op.arg(0)})"
    return rule


for _prim, _fn in VECMATH_UNARY.items():
    SCALAR.set(_prim, _vecmath_unary(_fn))
for _prim, _fn in VECMATH_BINARY.items():
    SCALAR.set(_prim, lambda op, fn=_fn: f"vecmath.{fn}({op.arg(0)}, {op.arg(1)})")


def _infix(symbol):
    return lambda op: f"{op.arg(0)} {symbol} {op.arg(1)}"


for _prim, _symbol in {"add": "+", "sub": "-", "mul": "*", "div": "/", "floor_divide": "//",
                       "rem": "%"}.items():
    SCALAR.set(_prim, _infix(_symbol))


def _compare(symbol):
    """Both operands in their common dtype (NumPy compares int64 with float64 as float64);
    complex numbers ordered as NumPy orders them, by real part and then imaginary part."""
    def rule(op):
        a, b = op.arg(0, op.common_dtype()), op.arg(1, op.common_dtype())
        if op.common_dtype().kind != "c" or symbol in ("==", "!="):
            return f"{a} {symbol} {b}"
        strict = symbol[0]
        return (f"(({a}).real {strict} ({b}).real or (({a}).real == ({b}).real and "
                f"({a}).imag {symbol} ({b}).imag))")
    return rule


for _prim, _symbol in {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">",
                       "ge": ">="}.items():
    SCALAR.set(_prim, _compare(_symbol))


def _bitwise(symbol):
    return lambda op: f"{op.arg(0)} {symbol} {op.arg(1)}"


for _prim, _symbol in {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}.items():
    SCALAR.set(_prim, _bitwise(_symbol))


def _shift_right_logical(op):
    """Numba computes narrow ints in 64 bits (the result is narrowed back): a signed operand
    is masked to its width first, so zeros move in. Counts of 64 or more are not defined."""
    width = op.dtype.itemsize * 8
    if op.dtype.kind == "i" and width < 64:
        return f"(({op.arg(0)} & {(1 << width) - 1}) >> {op.arg(1)})"
    return f"({op.arg(0)} >> {op.arg(1)})"


SCALAR.set("shift_left", lambda op: f"({op.arg(0)} << {op.arg(1)})")
SCALAR.set("shift_right_logical", _shift_right_logical)
SCALAR.set("shift_right_arithmetic", lambda op: f"({op.arg(0)} >> {op.arg(1)})")


def _float_or(float_rule, int_rule):
    """One rule for float results, another for integer / bool ones."""
    return lambda op: float_rule(op) if op.is_float() else int_rule(op)


def _identity(op):
    return op.arg(0)


def _abs(op):
    """The modulus of a complex operand (a real result: the operand keeps its dtype)."""
    if op.is_complex(0):
        return f"abs({op.arg(0, op.in_avals[0].dtype)})"
    return f"vecmath.abs({op.arg(0)})" if op.is_float() else f"abs({op.arg(0)})"


SCALAR.set("neg", lambda op: f"-{op.arg(0)}")
SCALAR.set("abs", _abs)
SCALAR.set("floor", _float_or(lambda op: f"vecmath.floor({op.arg(0)})", _identity))
SCALAR.set("ceil", _float_or(lambda op: f"vecmath.ceil({op.arg(0)})", _identity))
SCALAR.set("round", _float_or(lambda op: f"vecmath.rint({op.arg(0)})", _identity))
SCALAR.set("sign", lambda op: f"np.sign({op.arg(0)})")
SCALAR.set("rsqrt", lambda op: f"{_one(op)} / {'np' if op.is_complex() else 'vecmath'}"
                               f".sqrt({op.arg(0)})")
SCALAR.set("pow", _float_or(lambda op: f"vecmath.pow({op.arg(0)}, {op.arg(1)})",
                                   lambda op: f"{op.arg(0)} ** {op.arg(1)}"))
SCALAR.set("max", _float_or(lambda op: f"vecmath.maximum({op.arg(0)}, {op.arg(1)})",
                                   lambda op: f"max({op.arg(0)}, {op.arg(1)})"))
SCALAR.set("min", _float_or(lambda op: f"vecmath.minimum({op.arg(0)}, {op.arg(1)})",
                                   lambda op: f"min({op.arg(0)}, {op.arg(1)})"))
SCALAR.set("is_finite",
         lambda op: f"np.isfinite({op.arg(0, op.in_avals[0].dtype)})" if op.is_float(0)
         else _finite_parts(op.arg(0, op.in_avals[0].dtype)) if op.is_complex(0) else "True")
SCALAR.set("bitwise_not",
         lambda op: f"not {op.arg(0)}" if op.dtype.kind == "b" else f"~{op.arg(0)}")
SCALAR.set("select", lambda op: f"{op.arg(1)} if {op.arg(0, bool)} else {op.arg(2)}")
SCALAR.set("clamp", _float_or(
    lambda op: f"vecmath.minimum(vecmath.maximum({op.arg(1)}, {op.arg(0)}), {op.arg(2)})",
    lambda op: f"min(max({op.arg(1)}, {op.arg(0)}), {op.arg(2)})"))
SCALAR.set("convert", lambda op: op.arg(0))
SCALAR.set("stop_gradient", _identity)
SCALAR.set("bitcast_convert_type",
           lambda op: f"rt.bitcast({op.arg(0, op.in_avals[0].dtype)}, np.{op.dtype.name})")
SCALAR.set("lgamma", lambda op: f"vecmath.lgamma({op.arg(0)})")
SCALAR.set("digamma", lambda op: f"vecmath.digamma({op.arg(0)})")
SCALAR.set("polygamma", lambda op: (f"{_dtype(op)}(rt.polygamma({op.arg(0, np.float64)}, "
                                           f"{op.arg(1, np.float64)}))"))


def _finite_parts(z: str) -> str:
    return f"(np.isfinite(({z}).real) and np.isfinite(({z}).imag))"


# ---------------------------------------------------------------- complex numbers
def _part(attribute):
    """z.real / z.imag of a complex operand (a real operand is its own real part, imag 0)."""
    def rule(op):
        source = op.in_avals[0].dtype
        if source.kind == "c":
            return f"{_dtype(op)}(({op.arg(0, source)}).{attribute})"
        return op.arg(0) if attribute == "real" else _zero(op)
    return rule


SCALAR.set("real", _part("real"))
SCALAR.set("imag", _part("imag"))
SCALAR.set("conj", lambda op: f"({op.arg(0)}).conjugate()" if op.is_complex() else op.arg(0))
SCALAR.set("complex", lambda op: (f"{_dtype(op)}(complex({op.arg(0, part_dtype(op.dtype))}, "
                                  f"{op.arg(1, part_dtype(op.dtype))}))"))


def _zero(op) -> str:
    return scalar_literal(0, op.dtype)


def _dtype(op) -> str:
    return dtype_text(op.dtype)


def _one(op) -> str:
    return scalar_literal(1, op.dtype)
