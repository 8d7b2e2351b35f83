"""Elementwise lowerings: one StableHLO (or CHLO) operation where XLA has the function, NumPy's
meaning built from a few where it differs (remainder, floor division, logaddexp)."""
import numpy as np

from astjax.core.avals import result_dtype
from astjax.core.prims.elementwise import part_dtype
from astjax.core.ir import Lit

from . import trig
from .emit import LOWER

ONE_OPERATION = {
    "neg": "stablehlo.negate", "sign": "stablehlo.sign", "floor": "stablehlo.floor",
    "ceil": "stablehlo.ceil", "round": "stablehlo.round_nearest_even", "abs": "stablehlo.abs",
    "sqrt": "stablehlo.sqrt", "rsqrt": "stablehlo.rsqrt", "cbrt": "stablehlo.cbrt",
    "exp": "stablehlo.exponential", "expm1": "stablehlo.exponential_minus_one",
    "log": "stablehlo.log", "log1p": "stablehlo.log_plus_one", "sin": "stablehlo.sine",
    "cos": "stablehlo.cosine", "tan": "stablehlo.tan", "tanh": "stablehlo.tanh",
    "logistic": "stablehlo.logistic", "asin": "chlo.asin", "acos": "chlo.acos",
    "atan": "chlo.atan", "sinh": "chlo.sinh", "cosh": "chlo.cosh", "asinh": "chlo.asinh",
    "acosh": "chlo.acosh", "atanh": "chlo.atanh", "erf": "chlo.erf", "erfc": "chlo.erfc",
    "erf_inv": "chlo.erf_inv", "lgamma": "chlo.lgamma", "digamma": "chlo.digamma",
    "bitwise_not": "stablehlo.not",
    "add": "stablehlo.add", "sub": "stablehlo.subtract", "mul": "stablehlo.multiply",
    "div": "stablehlo.divide", "max": "stablehlo.maximum",
    "min": "stablehlo.minimum", "atan2": "stablehlo.atan2", "polygamma": "chlo.polygamma",
    "bitwise_and": "stablehlo.and", "bitwise_or": "stablehlo.or", "bitwise_xor": "stablehlo.xor",
    "shift_left": "stablehlo.shift_left", "shift_right_logical": "stablehlo.shift_right_logical",
    "shift_right_arithmetic": "stablehlo.shift_right_arithmetic", "clamp": "stablehlo.clamp",
}
INTEGER_IDENTITY = {"floor", "ceil", "round"}  # NumPy gives integers back unchanged
COMPARISONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}


def _out(eqn):
    aval = eqn.outs[0].aval
    return tuple(aval.shape), aval.dtype


def _operands(body, eqn, values):
    """The operands converted and broadcast to the result's shape and dtype (abs of a complex
    number keeps its complex operand)."""
    shape, dtype = _out(eqn)
    if eqn.prim == "abs" and values[0].dtype.kind == "c":
        return [body.broadcast(values[0], shape)]
    return body.coerce(values, shape, dtype)


def _one_operation(name):
    def lower(body, eqn, *values):
        shape, dtype = _out(eqn)
        operands = _operands(body, eqn, values)
        if eqn.prim in INTEGER_IDENTITY and dtype.kind in "iub":
            return operands
        return [body.op1(name, operands, shape, dtype, hint=eqn.prim)]
    return lower


VECTOR_TRIG = trig.KINDS  # (XLA's own calls the C library per element: see trig.py)

for _prim, _name in ONE_OPERATION.items():
    if _prim not in VECTOR_TRIG:
        LOWER.set(_prim, _one_operation(_name))


def _trig(kind):
    plain = _one_operation(ONE_OPERATION[kind])

    def lower(body, eqn, x):
        shape, dtype = _out(eqn)
        if not trig.wanted(dtype, shape):
            return plain(body, eqn, x)
        (x,) = _operands(body, eqn, [x])
        return [trig.fast_or_exact(body, x, kind, ONE_OPERATION[kind], hint=eqn.prim)]
    return lower


for _kind in VECTOR_TRIG:
    LOWER.set(_kind, _trig(_kind))


def _comparison(direction):
    def lower(body, eqn, a, b):
        shape, _ = _out(eqn)
        common, _ = result_dtype(eqn.ins[0].aval, eqn.ins[1].aval)
        a, b = body.coerce([a, b], shape, common)
        if np.dtype(common).kind == "c" and direction not in ("EQ", "NE"):
            return [lexicographic(body, a, b, direction, shape, common)]
        return [body.compare(a, b, direction)]
    return lower


def lexicographic(body, a, b, direction, shape, dtype):
    """An ordering of complex numbers as NumPy's: by real part, then by imaginary part
    (XLA's compare orders only real types)."""
    parts = part_dtype(dtype)
    re_a, re_b = (body.op1("stablehlo.real", [x], shape, parts) for x in (a, b))
    im_a, im_b = (body.op1("stablehlo.imag", [x], shape, parts) for x in (a, b))
    strict = direction[0] + "T"  # LT or GT
    first = body.compare(re_a, re_b, strict)
    tie = body.compare(re_a, re_b, "EQ")
    return body.binary("stablehlo.or", first,
                       body.binary("stablehlo.and", tie, body.compare(im_a, im_b, direction)))


for _prim, _direction in COMPARISONS.items():
    LOWER.set(_prim, _comparison(_direction))


@LOWER.register("select")
def _select(body, eqn, pred, a, b):
    shape, dtype = _out(eqn)
    pred = body.broadcast(body.convert(pred, np.bool_), shape)
    a, b = body.coerce([a, b], shape, dtype)
    return [body.select(pred, a, b)]


@LOWER.register("convert")
def _convert(body, eqn, x):
    return [body.convert(x, eqn.params["dtype"])]


@LOWER.register("bitcast_convert_type")
def _bitcast(body, eqn, x):
    shape, dtype = _out(eqn)
    return [body.op1("stablehlo.bitcast_convert", [x], shape, dtype)]


@LOWER.register("stop_gradient")
def _identity(body, eqn, x):
    return [x]


@LOWER.register("is_finite")
def _is_finite(body, eqn, x):
    if x.dtype.kind != "f":
        return [body.constant(True, np.bool_, x.shape)]
    return [body.op1("stablehlo.is_finite", [x], x.shape, np.bool_)]


@LOWER.register("exp2")
def _exp2(body, eqn, x):
    (x,) = _operands(body, eqn, [x])
    return [body.unary("stablehlo.exponential",
                       body.binary("stablehlo.multiply", x, body.constant(np.log(2), x.dtype, x.shape)))]


def _log_base(base):
    def lower(body, eqn, x):
        (x,) = _operands(body, eqn, [x])
        return [body.binary("stablehlo.divide", body.unary("stablehlo.log", x),
                            body.constant(np.log(base), x.dtype, x.shape))]
    return lower


LOWER.set("log2", _log_base(2))
LOWER.set("log10", _log_base(10))


def _sign_differs(body, a, b):
    zero = body.constant(0, a.dtype, a.shape)
    return body.compare(body.compare(a, zero, "LT"), body.compare(b, zero, "LT"), "NE")


@LOWER.register("rem")
def _rem(body, eqn, a, b):
    """NumPy's remainder takes the divisor's sign; StableHLO's (C's fmod) the dividend's."""
    a, b = _operands(body, eqn, [a, b])
    r = body.binary("stablehlo.remainder", a, b)
    if a.dtype.kind == "u":
        return [r]
    zero = body.constant(0, a.dtype, a.shape)
    fix = body.binary("stablehlo.and", body.compare(r, zero, "NE"), _sign_differs(body, r, b))
    return [body.select(fix, body.binary("stablehlo.add", r, b), r)]


@LOWER.register("floor_divide")
def _floor_divide(body, eqn, a, b):
    """Rounds toward -inf as NumPy does (StableHLO's integer divide truncates); for floats,
    NumPy's divmod: (a - fmod(a, b)) / b, corrected and rounded."""
    a, b = _operands(body, eqn, [a, b])
    zero = body.constant(0, a.dtype, a.shape)
    one = body.constant(1, a.dtype, a.shape)
    mod = body.binary("stablehlo.remainder", a, b)
    if a.dtype.kind in "iu":
        q = body.binary("stablehlo.divide", a, b)
        if a.dtype.kind == "u":
            return [q]
        fix = body.binary("stablehlo.and", body.compare(mod, zero, "NE"), _sign_differs(body, mod, b))
        return [body.select(fix, body.binary("stablehlo.subtract", q, one), q)]
    d = body.binary("stablehlo.divide", body.binary("stablehlo.subtract", a, mod), b)
    fix = body.binary("stablehlo.and", body.compare(mod, zero, "NE"), _sign_differs(body, mod, b))
    d = body.select(fix, body.binary("stablehlo.subtract", d, one), d)
    f = body.unary("stablehlo.floor", d)
    half = body.constant(0.5, a.dtype, a.shape)
    f = body.select(body.compare(body.binary("stablehlo.subtract", d, f), half, "GT"),
                    body.binary("stablehlo.add", f, one), f)
    by_zero = body.compare(b, zero, "EQ")
    return [body.select(by_zero, body.binary("stablehlo.divide", a, b), f)]


@LOWER.register("logaddexp")
def _logaddexp(body, eqn, a, b):
    a, b = _operands(body, eqn, [a, b])
    top = body.binary("stablehlo.maximum", a, b)
    delta = body.binary("stablehlo.subtract", a, b)
    tail = body.unary("stablehlo.log_plus_one", body.unary(
        "stablehlo.exponential", body.unary("stablehlo.negate", body.unary("stablehlo.abs", delta))))
    return [body.select(body.compare(delta, delta, "NE"), body.binary("stablehlo.add", a, b),
                        body.binary("stablehlo.add", top, tail))]


@LOWER.register("pow")
def _pow(body, eqn, x, y):
    """x ** n for a literal integer n (|n| <= 16) by repeated squaring, as JAX's integer_pow:
    a few multiplies instead of a call to pow."""
    exponent = eqn.ins[1].value if isinstance(eqn.ins[1], Lit) else None
    x, y = _operands(body, eqn, [x, y])
    if exponent is None or np.ndim(exponent) != 0 or float(exponent) != int(exponent) \
            or abs(int(exponent)) > 16 or x.dtype.kind not in "fc":
        return [body.binary("stablehlo.power", x, y)]
    n = abs(int(exponent))
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else body.binary("stablehlo.multiply", result, square)
        n >>= 1
        if n:
            square = body.binary("stablehlo.multiply", square, square)
    if result is None:
        result = body.constant(1, x.dtype, x.shape)
    if int(exponent) < 0:
        result = body.binary("stablehlo.divide", body.constant(1, x.dtype, x.shape), result)
    return [result]


# ---------------------------------------------------------------- complex numbers
@LOWER.register("real", "imag")
def _part(body, eqn, z):
    shape, dtype = _out(eqn)
    z = body.broadcast(z, shape)
    if z.dtype.kind != "c":  # real(x) of a real x is x, imag(x) is 0
        return [body.convert(z, dtype) if eqn.prim == "real" else body.constant(0, dtype, shape)]
    return [body.op1(f"stablehlo.{eqn.prim}", [z], shape, dtype)]


@LOWER.register("conj")
def _conj(body, eqn, z):
    shape, dtype = _out(eqn)
    (z,) = body.coerce([z], shape, dtype)
    if dtype.kind != "c":
        return [z]
    re = body.op1("stablehlo.real", [z], shape, part_dtype(dtype))
    im = body.unary("stablehlo.negate", body.op1("stablehlo.imag", [z], shape, part_dtype(dtype)))
    return [body.op1("stablehlo.complex", [re, im], shape, dtype)]


@LOWER.register("complex")
def _complex(body, eqn, x, y):
    shape, dtype = _out(eqn)
    x, y = body.coerce([x, y], shape, part_dtype(dtype))
    return [body.op1("stablehlo.complex", [x, y], shape, dtype)]
