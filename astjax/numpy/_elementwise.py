"""NumPy's ufunc-like functions: one primitive each where one exists, short compositions where not.

Operands are passed to the primitives as they are: the primitives broadcast NumPy-style and
their dtype rule is NumPy's own (NEP 50: Python scalars are weak, float32 stays float32).
"""
import math

import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._util import bind


def _unary(prim):
    def fn(x, /):
        return bind(prim, _as_operand(x))
    return fn


def _binary(prim):
    def fn(x1, x2, /):
        return bind(prim, _as_operand(x1), _as_operand(x2))
    return fn


# ---------------------------------------------------------------- one primitive each
negative, sign, floor, ceil, rint = (_unary(p) for p in ("neg", "sign", "floor", "ceil", "round"))
absolute = abs = _unary("abs")
sqrt, cbrt, exp, exp2, expm1 = (_unary(p) for p in ("sqrt", "cbrt", "exp", "exp2", "expm1"))
log, log1p, log2, log10 = (_unary(p) for p in ("log", "log1p", "log2", "log10"))
sin, cos, tan, sinh, cosh, tanh = (_unary(p) for p in ("sin", "cos", "tan", "sinh", "cosh", "tanh"))
arcsin = asin = _unary("asin")
arccos = acos = _unary("acos")
arctan = atan = _unary("atan")
arcsinh = asinh = _unary("asinh")
arccosh = acosh = _unary("acosh")
arctanh = atanh = _unary("atanh")
isfinite = _unary("is_finite")
invert = bitwise_not = bitwise_invert = _unary("bitwise_not")

add, subtract, multiply = _binary("add"), _binary("sub"), _binary("mul")
divide = true_divide = _binary("div")
floor_divide = _binary("floor_divide")
remainder = mod = _binary("rem")
def power(x1, x2, /):
    """x1 ** x2; a literal square is x1 * x1 (exact, and far cheaper than pow in any backend)."""
    if isinstance(x2, (int, float)) and not isinstance(x2, bool) and x2 == 2:
        x1 = _as_operand(x1)
        return bind("mul", x1, x1)
    return bind("pow", _as_operand(x1), _as_operand(x2))


pow = power
maximum, minimum = _binary("max"), _binary("min")
arctan2 = atan2 = _binary("atan2")
logaddexp = _binary("logaddexp")
equal, not_equal = _binary("eq"), _binary("ne")
less, less_equal, greater, greater_equal = (_binary(p) for p in ("lt", "le", "gt", "ge"))
bitwise_and, bitwise_or, bitwise_xor = (_binary(p) for p in (
    "bitwise_and", "bitwise_or", "bitwise_xor"))


# ---------------------------------------------------------------- compositions
def positive(x, /):
    return _as_operand(x)


def square(x, /):
    x = _as_operand(x)
    return bind("mul", x, x)


def reciprocal(x, /):
    """1 / x; integer inputs give float64 here (NumPy's integer reciprocal truncates to 0)."""
    return bind("div", 1, _as_operand(x))


def fabs(x, /):
    x = _as_operand(x)
    return bind("abs", x if u.is_inexact(x) else bind("convert", x, dtype="float64"))


def trunc(x, /):
    x = _as_operand(x)
    if not u.is_inexact(x):
        return x
    return bind("select", bind("lt", x, 0), bind("ceil", x), bind("floor", x))


fix = trunc


def round(a, decimals=0, out=None):
    a = _as_operand(a)
    if decimals == 0 or not u.is_inexact(a):
        return bind("round", a) if u.is_inexact(a) else a
    scale = 10.0 ** decimals  # as NumPy does: round(a * 10**d) / 10**d
    return bind("div", bind("round", bind("mul", a, scale)), scale)


around = round


def isnan(x, /):
    x = _as_operand(x)
    return bind("ne", x, x)


def isinf(x, /):
    return bind("eq", bind("abs", _as_operand(x)), np.inf)


def isposinf(x, /):
    return bind("eq", _as_operand(x), np.inf)


def isneginf(x, /):
    return bind("eq", _as_operand(x), -np.inf)


def signbit(x, /):
    """True where the sign bit is set, -0.0 included: atan2(-0.0, -1) is -pi, atan2(0.0, -1) pi."""
    x = _as_operand(x)
    if not u.is_inexact(x):
        return bind("lt", x, 0)
    return bind("lt", bind("atan2", x, -1), 0)


def copysign(x1, x2, /):
    magnitude = bind("abs", _as_operand(x1))
    return bind("select", signbit(x2), bind("neg", magnitude), magnitude)


def _to_bool(x):
    x = _as_operand(x)
    return x if u.kind(x) == "b" else bind("ne", x, 0)


def logical_not(x, /):
    return bind("bitwise_not", _to_bool(x))


def logical_and(x1, x2, /):
    return bind("bitwise_and", _to_bool(x1), _to_bool(x2))


def logical_or(x1, x2, /):
    return bind("bitwise_or", _to_bool(x1), _to_bool(x2))


def logical_xor(x1, x2, /):
    return bind("bitwise_xor", _to_bool(x1), _to_bool(x2))


def left_shift(x1, x2, /):
    return bind("mul", _as_operand(x1), bind("pow", 2, _as_operand(x2)))


def right_shift(x1, x2, /):
    return bind("floor_divide", _as_operand(x1), bind("pow", 2, _as_operand(x2)))


def fmod(x1, x2, /):
    """C's remainder: the sign of the dividend (NumPy's `remainder` takes the divisor's)."""
    x1, x2 = _as_operand(x1), _as_operand(x2)
    r = bind("rem", x1, x2)
    signs_differ = bind("ne", bind("lt", x1, 0), bind("lt", x2, 0))
    fix_up = bind("bitwise_and", bind("ne", r, 0), signs_differ)
    return bind("select", fix_up, bind("sub", r, x2), r)


def divmod(x1, x2, /):
    return floor_divide(x1, x2), remainder(x1, x2)


def fmax(x1, x2, /):
    """maximum that ignores NaN: a NaN loses to a number."""
    x1, x2 = _as_operand(x1), _as_operand(x2)
    return bind("select", isnan(x2), x1, bind("select", isnan(x1), x2, bind("max", x1, x2)))


def fmin(x1, x2, /):
    x1, x2 = _as_operand(x1), _as_operand(x2)
    return bind("select", isnan(x2), x1, bind("select", isnan(x1), x2, bind("min", x1, x2)))


def float_power(x1, x2, /):
    """x1 ** x2 in the operands' inexact dtype (JAX's: float32 stays float32; NumPy's is
    always float64)."""
    x1, x2 = _as_operand(x1), _as_operand(x2)
    dtype = u.inexact_type_of(x1, x2).name
    return bind("pow", bind("convert", x1, dtype=dtype), bind("convert", x2, dtype=dtype))


def hypot(x1, x2, /):
    """sqrt(x1**2 + x2**2) without overflow: big * sqrt(1 + (small/big)**2)."""
    a, b = bind("abs", _as_operand(x1)), bind("abs", _as_operand(x2))
    big, small = bind("max", a, b), bind("min", a, b)
    safe_big = bind("select", bind("eq", big, 0), bind("add", big, 1), big)
    ratio = bind("div", small, safe_big)
    return bind("mul", big, bind("sqrt", bind("add", bind("mul", ratio, ratio), 1)))


def logaddexp2(x1, x2, /):
    ln2 = math.log(2.0)  # a Python float: weak, so float32 stays float32
    x1, x2 = bind("mul", _as_operand(x1), ln2), bind("mul", _as_operand(x2), ln2)
    natural = bind("logaddexp", x1, x2)
    return bind("div", natural, ln2)


def sinc(x, /):
    """sin(pi x) / (pi x), with the limit 1 at x = 0."""
    x = _as_operand(x)
    at_zero = bind("eq", x, 0)
    safe = bind("mul", bind("select", at_zero, 1, x), np.pi)
    return bind("select", at_zero, 1, bind("div", bind("sin", safe), safe))


def deg2rad(x, /):
    return _scale(x, np.pi, 180)


def rad2deg(x, /):
    return _scale(x, 180, np.pi)


def _scale(x, numerator, denominator):
    """x * (numerator / denominator), the constant rounded in x's float type as NumPy does."""
    x = _as_operand(x)
    dtype = u.inexact_type_of(x)
    return bind("mul", x, np.asarray(numerator, dtype) / np.asarray(denominator, dtype))


radians, degrees = deg2rad, rad2deg


def heaviside(x1, x2, /):
    x1, x2 = _as_operand(x1), _as_operand(x2)
    dtype = u.result_type_of(x1, x2)
    step = bind("select", bind("gt", x1, 0), u.one(dtype), u.zero(dtype))
    at_zero = bind("select", bind("eq", x1, 0), x2, step)
    return bind("select", isnan(x1), x1, at_zero)


# ---------------------------------------------------------------- complex numbers
def conjugate(x, /):
    x = _as_operand(x)
    return bind("conj", x) if u.dtype_of(x).kind == "c" else x


conj = conjugate


def real(val, /):
    val = _as_operand(val)
    return bind("real", val) if u.dtype_of(val).kind == "c" else val


def imag(val, /):
    val = _as_operand(val)
    if u.dtype_of(val).kind == "c":
        return bind("imag", val)
    return bind("full", u.zero(u.dtype_of(val)), shape=u.shape(val), dtype=u.dtype_of(val).name)


def angle(z, deg=False):
    z = _as_operand(z)
    out = bind("atan2", imag(z), real(z))
    return rad2deg(out) if deg else out


def iscomplexobj(x):
    return u.dtype_of(_as_operand(x)).kind == "c"


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    x = _as_operand(x)
    return bind("ne", imag(x), 0) if iscomplexobj(x) else bind("full", False, shape=u.shape(x),
                                                                 dtype="bool")


def isreal(x):
    return invert(iscomplex(x))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    x = _as_operand(x)
    if not u.is_inexact(x):
        return x
    info = np.finfo(u.dtype_of(x))
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = bind("select", isnan(x), nan, x)
    x = bind("select", bind("eq", x, np.inf), posinf, x)
    return bind("select", bind("eq", x, -np.inf), neginf, x)


# ---------------------------------------------------------------- selection
def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """x where condition holds, else y (the one-argument form, nonzero, is the package's
    `where`, which dispatches here otherwise)."""
    if x is None or y is None:
        raise u.ShapeError("where: pass both x and y", hint="jnp.nonzero(condition) gives the "
                                                            "positions")
    return bind("select", _to_bool(condition), _as_operand(x), _as_operand(y))


def clip(a, a_min=None, a_max=None, *, min=None, max=None):
    a = _as_operand(a)
    lo = min if a_min is None else a_min
    hi = max if a_max is None else a_max
    if lo is not None and hi is not None:
        return bind("clamp", _as_operand(lo), a, _as_operand(hi))
    if lo is not None:
        a = bind("max", a, _as_operand(lo))
    if hi is not None:
        a = bind("min", a, _as_operand(hi))
    return a


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _as_operand(a), _as_operand(b)
    if not u.is_inexact(a) and not u.is_inexact(b):
        return bind("eq", a, b)
    tolerance = bind("add", atol, bind("mul", rtol, bind("abs", b)))
    near = bind("le", bind("abs", bind("sub", a, b)), tolerance)
    finite = bind("bitwise_and", bind("is_finite", a), bind("is_finite", b))
    close = bind("select", finite, near, bind("eq", a, b))  # infinities: equal or not
    if equal_nan:
        close = bind("bitwise_or", close, bind("bitwise_and", isnan(a), isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    close = isclose(a, b, rtol, atol, equal_nan)
    return bind("reduce_and", close, axes=tuple(range(u.ndim(close))))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = _as_operand(a1), _as_operand(a2)
    if u.shape(a1) != u.shape(a2):
        return np.asarray(False)
    same = bind("eq", a1, a2)
    if equal_nan:
        same = bind("bitwise_or", same, bind("bitwise_and", isnan(a1), isnan(a2)))
    return bind("reduce_and", same, axes=tuple(range(u.ndim(same))))


__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and value.__module__ == __name__]
