"""Derivatives of the elementwise primitives, both modes, from one table of derivatives.

Each nonlinear primitive's derivative is written once (`unary`/`binary`, as a function of its
operands and its result `out`); the reverse rule multiplies the cotangent by it and sums it back
to the operand's shape, the forward rule multiplies the tangent by it. Linear primitives apply
themselves to tangents; comparisons, rounding and integer results have no derivative.
"""
import math

from astjax.core.bind import bind

from .rules import VJP, add_all, linear, no_derivative, tangent_rule
from .util import aval, unbroadcast, value


def _op(name):
    return lambda *args, **params: bind(name, *args, **params)


add, sub, mul, div, neg = _op("add"), _op("sub"), _op("mul"), _op("div"), _op("neg")
exp, log, sqrt, rsqrt = _op("exp"), _op("log"), _op("sqrt"), _op("rsqrt")
sin, cos, select, eq = _op("sin"), _op("cos"), _op("select"), _op("eq")


UNARY_DERIVATIVES: dict = {}   # name -> derivative(x, out); forward mode reuses them
BINARY_DERIVATIVES: dict = {}  # name -> (d/dx, d/dy) of (x, y, out)


def unary(name, derivative):
    """d/dx written with x and out: the cotangent is ct * derivative(x, out)."""
    UNARY_DERIVATIVES[name] = derivative
    VJP.register(name)(lambda ct, x, out: [unbroadcast(mul(ct, derivative(value(x), out)), x)])


# ---------------------------------------------------------------- elementwise, one operand
unary("sin", lambda x, out: cos(x))
unary("cos", lambda x, out: neg(sin(x)))
unary("tan", lambda x, out: add(1.0, mul(out, out)))
unary("asin", lambda x, out: rsqrt(sub(1.0, mul(x, x))))
unary("acos", lambda x, out: neg(rsqrt(sub(1.0, mul(x, x)))))
unary("atan", lambda x, out: div(1.0, add(1.0, mul(x, x))))
unary("sinh", lambda x, out: bind("cosh", x))
unary("cosh", lambda x, out: bind("sinh", x))
unary("tanh", lambda x, out: sub(1.0, mul(out, out)))
unary("asinh", lambda x, out: rsqrt(add(mul(x, x), 1.0)))
unary("acosh", lambda x, out: rsqrt(sub(mul(x, x), 1.0)))
unary("atanh", lambda x, out: div(1.0, sub(1.0, mul(x, x))))
unary("exp", lambda x, out: out)
unary("exp2", lambda x, out: mul(out, math.log(2.0)))
unary("expm1", lambda x, out: add(out, 1.0))
unary("log", lambda x, out: div(1.0, x))
unary("log1p", lambda x, out: div(1.0, add(x, 1.0)))
unary("log2", lambda x, out: div(1.0 / math.log(2.0), x))
unary("log10", lambda x, out: div(1.0 / math.log(10.0), x))
unary("sqrt", lambda x, out: div(0.5, out))
unary("rsqrt", lambda x, out: mul(-0.5, div(out, x)))
unary("cbrt", lambda x, out: div(1.0 / 3.0, mul(out, out)))
unary("logistic", lambda x, out: mul(out, sub(1.0, out)))
unary("erf", lambda x, out: mul(2.0 / math.sqrt(math.pi), exp(neg(mul(x, x)))))
unary("erfc", lambda x, out: mul(-2.0 / math.sqrt(math.pi), exp(neg(mul(x, x)))))
unary("erf_inv", lambda x, out: mul(math.sqrt(math.pi) / 2.0, exp(mul(out, out))))
unary("lgamma", lambda x, out: bind("digamma", x))
unary("digamma", lambda x, out: bind("polygamma", 1.0, x))
VJP.register("neg")(lambda ct, x, out: [neg(ct)])


@VJP.register("convert")
def _convert(ct, x, out, dtype):
    source = aval(x).dtype
    if source.kind not in "fc":
        return [None]
    if aval(ct).dtype.kind == "c" and source.kind != "c":
        ct = bind("real", ct)  # the transpose of a real -> complex cast keeps the real part
    if aval(ct).dtype != source:
        ct = bind("convert", ct, dtype=source.name)
    return [unbroadcast(ct, x)]


# ---------------------------------------------------------------- complex numbers
# JAX's convention: a VJP is the transpose of the (R-linear) JVP with no conjugation, so for a
# real-valued f of complex z, grad(f)(z) = df/dx - i df/dy (x, y the parts of z).
def _is_complex(x):
    a = aval(x)
    return a is not None and a.dtype.kind == "c"


def _abs_scale(x, out):
    """conj(x) / |x| (1 where x == 0, so the derivative there is 0 as in JAX)."""
    safe = select(eq(out, 0.0), 1.0, out)
    return div(bind("conj", x), bind("convert", safe, dtype=aval(x).dtype.name))


@VJP.register("abs")
def _abs_vjp(ct, x, out):
    scale = _abs_scale(value(x), out) if _is_complex(x) else bind("sign", value(x))
    return [unbroadcast(mul(ct, scale), x)]


@tangent_rule("abs")
def _abs_jvp(p, t, out):
    if t[0] is None:
        return None
    if _is_complex(p[0]):
        return bind("real", mul(t[0], _abs_scale(p[0], out)))
    return mul(t[0], bind("sign", p[0]))


VJP.register("real")(lambda ct, x, out: [unbroadcast(bind("complex", ct, 0.0), x)])
VJP.register("imag")(lambda ct, x, out: [unbroadcast(bind("complex", 0.0, neg(ct)), x)])
VJP.register("conj")(lambda ct, x, out: [unbroadcast(bind("conj", ct), x)])
VJP.register("complex")(lambda ct, x, y, out: [unbroadcast(bind("real", ct), x),
                                               unbroadcast(neg(bind("imag", ct)), y)])


# ---------------------------------------------------------------- elementwise, two operands
def binary(name, dx, dy):
    """Cotangents ct*dx(x, y, out) and ct*dy(...), summed back to each operand's shape."""
    BINARY_DERIVATIVES[name] = (dx, dy)

    @VJP.register(name)
    def _reverse(ct, x, y, out):
        xv, yv = value(x), value(y)
        return [unbroadcast(mul(ct, dx(xv, yv, out)), x) if dx else None,
                unbroadcast(mul(ct, dy(xv, yv, out)), y) if dy else None]


VJP.register("add")(lambda ct, x, y, out: [unbroadcast(ct, x), unbroadcast(ct, y)])
VJP.register("sub")(lambda ct, x, y, out: [unbroadcast(ct, x), unbroadcast(neg(ct), y)])
binary("mul", lambda x, y, out: y, lambda x, y, out: x)
binary("div", lambda x, y, out: div(1.0, y), lambda x, y, out: neg(div(out, y)))
binary("pow", lambda x, y, out: mul(y, bind("pow", x, sub(y, 1))),
       lambda x, y, out: mul(out, _safe_log(x)))
binary("atan2", lambda x, y, out: div(y, add(mul(x, x), mul(y, y))),
       lambda x, y, out: neg(div(x, add(mul(x, x), mul(y, y)))))
binary("logaddexp", lambda x, y, out: exp(sub(x, out)), lambda x, y, out: exp(sub(y, out)))
binary("polygamma", None, lambda m, x, out: bind("polygamma", add(m, 1.0), x))  # m: an integer
binary("rem", lambda x, y, out: 1.0, lambda x, y, out: neg(bind("floor_divide", x, y)))
binary("max", lambda x, y, out: _pick(x, y, "gt", out), lambda x, y, out: _pick(y, x, "gt", out))
binary("min", lambda x, y, out: _pick(x, y, "lt", out), lambda x, y, out: _pick(y, x, "lt", out))


def _safe_log(x):
    """log(x) where x > 0, else 0: d(x**y)/dy at x == 0 is 0, as in JAX."""
    positive = bind("gt", x, 0)
    return select(positive, log(select(positive, x, 1.0)), 0.0)


def _pick(x, y, cmp, out):
    """1 where x wins, 0.5 on ties (JAX splits ties evenly), else 0, in the result's dtype
    (Python floats here would make a float64 array of a float32 relu's derivative)."""
    one, half, zero = (aval(out).dtype.type(v) for v in (1.0, 0.5, 0.0))
    return select(bind(cmp, x, y), one, select(eq(x, y), half, zero))


@VJP.register("select")
def _select(ct, pred, a, b, out):
    zero = 0.0
    return [None, unbroadcast(select(pred, ct, zero), a), unbroadcast(select(pred, zero, ct), b)]


@VJP.register("clamp")
def _clamp(ct, lo, x, hi, out):
    inside = bind("bitwise_and", bind("ge", x, lo), bind("le", x, hi))
    return [unbroadcast(select(bind("lt", x, lo), ct, 0.0), lo),
            unbroadcast(select(inside, ct, 0.0), x),
            unbroadcast(select(bind("gt", x, hi), ct, 0.0), hi)]


# ---------------------------------------------------------------- forward mode
for _name, _derivative in UNARY_DERIVATIVES.items():
    tangent_rule(_name)((lambda d: lambda p, t, out: None if t[0] is None
                         else mul(t[0], d(p[0], out)))(_derivative))

for _name, (_dx, _dy) in BINARY_DERIVATIVES.items():
    if _name in ("mul", "div"):  # written below without materialising 1/y or -out/y
        continue
    tangent_rule(_name)((lambda dx, dy: lambda p, t, out: add_all([
        None if t[0] is None or dx is None else mul(t[0], dx(p[0], p[1], out)),
        None if t[1] is None or dy is None else mul(t[1], dy(p[0], p[1], out))]))(_dx, _dy))

for _name in ("neg", "add", "sub", "convert", "real", "imag", "conj", "complex"):
    linear(_name)
linear("select", positions=(1, 2))


@tangent_rule("mul")
def _mul_jvp(p, t, out):
    x, y = p
    return add_all([None if t[0] is None else mul(t[0], y),
                    None if t[1] is None else mul(x, t[1])])


@tangent_rule("div")
def _div_jvp(p, t, out):
    x, y = p
    num = add_all([t[0], None if t[1] is None else neg(mul(out, t[1]))])
    return None if num is None else div(num, y)


@tangent_rule("clamp")
def _clamp_jvp(p, t, out):
    lo, x, hi = p
    inside = bind("bitwise_and", bind("ge", x, lo), bind("le", x, hi))
    return add_all([
        None if t[0] is None else select(bind("lt", x, lo), t[0], 0.0),
        None if t[1] is None else select(inside, t[1], 0.0),
        None if t[2] is None else select(bind("gt", x, hi), t[2], 0.0)])


# ---------------------------------------------------------------- no derivative
no_derivative("sign", "floor", "ceil", "round", "floor_divide", "stop_gradient",
              "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
              "shift_left", "shift_right_logical", "shift_right_arithmetic",
              "bitwise_not", "is_finite", "bitcast_convert_type")
