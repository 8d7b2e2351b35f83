"""Elementwise primitives: NumPy implementations and one shape/dtype rule for all of them.

The dtype rule asks NumPy itself (the implementation applied to 0-d stand-ins of the operands'
dtypes), so compiled code gets exactly the dtypes eager NumPy would give.
"""
import importlib

import numpy as np

from ...errors import ShapeError
from ..avals import AVal, _WEAK_STAND_IN
from ..primitives import define


# Elementwise primitives that are a math-library call per element (exp, sin, ...), not one or
# two instructions: what a backend weighs when it decides to recompute or keep a value, or
# estimates how long a function runs.
TRANSCENDENTAL = frozenset({
    "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "erf", "erfc",
    "erf_inv", "lgamma", "digamma", "polygamma", "pow", "atan2", "logaddexp", "cbrt"})


def broadcast_shapes(*shapes) -> tuple:
    # A -1 is the length of a while loop's tape, known when the loop runs: the arrays a rule
    # combines with a tape are of the same loop, so their -1s are the same length.
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):  # NumPy's rule, axes aligned from the right; sizes may be symbolic
        sizes = [s[len(s) - rank + axis] for s in shapes if len(s) - rank + axis >= 0]
        wide = [d for d in sizes if not (isinstance(d, int) and d == 1)]
        if any(d != wide[0] for d in wide[1:]):
            listed = " and ".join(str(tuple(s)) for s in shapes)
            raise ShapeError(f"shapes {listed} do not broadcast together",
                             hint="line up the axes with reshape, x[:, None] or jnp.broadcast_to")
        out.append(wide[0] if wide else 1)
    return tuple(out)


def _stand_in(aval: AVal):
    if aval.weak:
        return _WEAK_STAND_IN[aval.dtype.kind]
    return np.ones((), aval.dtype)


def elementwise_rule(impl, value_operands=slice(None)):
    """`value_operands`: the operands whose weakness the result inherits (select's predicate
    does not count: choosing between two Python floats gives a weak float)."""
    def abstract(*avals, **params):
        with np.errstate(all="ignore"):
            dtype = np.asarray(impl(*[_stand_in(a) for a in avals], **params)).dtype
        shape = broadcast_shapes(*[a.shape for a in avals])
        # weak as JAX's: an array made of Python numbers only (`where(c, 1.0, -1.0)`) takes
        # the dtype of what it meets (core/bind.py converts it first, NumPy would not)
        weak = all(a.weak for a in avals[value_operands]) and dtype.kind != "b"
        return AVal(shape, dtype, weak)
    return abstract


def _define(name, impl):
    return define(name, impl, elementwise_rule(impl), kind="elementwise")


def _special():
    """scipy.special, imported when a special function first runs: importing it took 0.24 s
    of `import astjax`'s 0.5 s."""
    return importlib.import_module("scipy.special")


def _scipy(name: str):
    def impl(*args):
        return getattr(_special(), name)(*args)
    impl.__name__ = impl.__qualname__ = name
    return impl


def _logistic(x):
    """1 / (1 + exp(-x)), as XLA computes it (below about -88 in float32, exp overflows and
    the result is 0). NumPy's own ufuncs: SciPy's expit would cost a first call the import
    of scipy.special (0.24 s)."""
    x = np.asarray(x)
    if not x.ndim or x.dtype.kind != "f":
        with np.errstate(over="ignore"):
            out = 1.0 / (1.0 + np.exp(-x))
        return out if out.ndim else out[()]
    out = np.negative(x)  # (one array, each step in place: 2M float32 5.8-6.3 -> 4.3-4.5 ms)
    with np.errstate(over="ignore"):
        np.exp(out, out=out)
    out += 1
    return np.divide(1, out, out=out)


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _not(x):
    x = np.asarray(x)
    return np.logical_not(x) if x.dtype == bool else np.invert(x)


def _lgamma(x):
    """log|Gamma(x)|, +inf at -inf as C99 and JAX have it (scipy's gammaln says -inf)."""
    out = np.asarray(_special().gammaln(x))
    return np.where(np.isneginf(x), out.dtype.type(np.inf), out)


def _shift(x, s, shift, logical: bool):
    """XLA's shifts: a count outside [0, bits) gives 0 (or the sign, arithmetic right); the
    logical right shift moves zeros into signed values too."""
    x, s = np.asarray(x), np.asarray(s)
    bits = x.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}") if x.dtype.kind in "iu" else x.dtype
    work = x.view(unsigned) if logical and x.dtype.kind == "i" else x
    inside = (s >= 0) & (s < bits)
    count = np.where(inside, s, 0).astype(work.dtype)
    out = shift(work, count)
    outside = (np.right_shift(work, bits - 1) if shift is np.right_shift and not logical
               else np.zeros((), work.dtype))
    out = np.where(inside, out, outside).astype(work.dtype)
    out = out.view(x.dtype) if out.dtype != x.dtype else out
    return out if out.ndim else out[()]


def _polygamma(m, x):
    """scipy.special.polygamma: nan unless m is a non-negative integer (as lax.polygamma), in
    the dtype NumPy promotes m and x to (SciPy's gives float64 for a Python float m)."""
    dtype = np.result_type(m, x)
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float64)
    with np.errstate(all="ignore"):
        out = np.asarray(_special().polygamma(m, x), dtype)
    return out if out.ndim else out[()]


def _convert(x, *, dtype):
    """astype, a complex value to a real dtype keeping its real part (as lax does)."""
    x = np.asarray(x)
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = x.real
    return x.astype(dtype)


def part_dtype(dtype) -> np.dtype:
    """The dtype of a complex dtype's real and imaginary parts (a real dtype is its own)."""
    return np.empty(0, dtype).real.dtype


def complex_dtype(dtype) -> np.dtype:
    """The complex dtype whose parts are `dtype` (complex64 for float32 and narrower)."""
    return np.dtype(np.complex64 if np.dtype(dtype).itemsize <= 4 else np.complex128)


def _complex(x, y):
    """x + i y, built part by part (x + 1j * y would turn inf into nan)."""
    x, y = np.asarray(x), np.asarray(y)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), complex_dtype(np.result_type(x, y)))
    out.real, out.imag = x, y
    return out if out.ndim else out[()]


UNARY = {
    "neg": np.negative, "sign": np.sign, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "abs": np.abs, "sqrt": np.sqrt, "rsqrt": _rsqrt, "cbrt": np.cbrt,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
    "log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "logistic": _logistic, "erf": _scipy("erf"), "erfc": _scipy("erfc"),
    "erf_inv": _scipy("erfinv"), "lgamma": _lgamma, "digamma": _scipy("digamma"),
    "is_finite": np.isfinite, "bitwise_not": _not,
    "real": np.real, "imag": np.imag, "conj": np.conj,
}

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floor_divide": np.floor_divide, "rem": np.remainder, "pow": np.power,
    "max": np.maximum, "min": np.minimum, "atan2": np.arctan2, "logaddexp": np.logaddexp,
    "polygamma": _polygamma, "complex": _complex,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "shift_left": lambda x, s: _shift(x, s, np.left_shift, False),
    "shift_right_logical": lambda x, s: _shift(x, s, np.right_shift, True),
    "shift_right_arithmetic": lambda x, s: _shift(x, s, np.right_shift, False),
}

for _name, _impl in {**UNARY, **BINARY}.items():
    _define(_name, _impl)

define("select", np.where, elementwise_rule(np.where, slice(1, None)),  # select(pred, a, b)
       kind="elementwise")
_define("clamp", lambda lo, x, hi: np.clip(x, lo, hi))
define("convert", _convert, lambda a, *, dtype: AVal(a.shape, np.dtype(dtype)),
       kind="elementwise")


def _bitcast(x, *, dtype):
    """x's bits read as `dtype` (of the same width), as lax.bitcast_convert_type."""
    x = np.asarray(x)
    out = x.view(np.dtype(dtype)) if x.ndim else x.reshape(1).view(np.dtype(dtype)).reshape(())
    return out if out.ndim else out[()]


define("bitcast_convert_type", _bitcast,
       lambda a, *, dtype: AVal(a.shape, np.dtype(dtype)), kind="elementwise")
# stop_gradient(x): x, whose derivative is zero (autodiff stops at it)
define("stop_gradient", lambda x: np.asarray(x), lambda a: a, kind="elementwise")
