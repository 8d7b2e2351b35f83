"""Functions of a number's bits: frexp, ldexp, nextafter, spacing, modf; population count and
leading zeros of integers; gcd and lcm.

The float functions read and write the IEEE fields through `bitcast_convert_type`, so they are
exact (powers of two are built from their bits, never by `pow`) and agree with NumPy bit for bit,
subnormals included.
"""
import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._elementwise import copysign, isinf, isnan, where
from ._util import bind

_INT_OF_WIDTH = {2: np.int16, 4: np.int32, 8: np.int64}
_UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _inexact(*xs):
    xs = [_as_operand(x) for x in xs]
    dtype = u.inexact_type_of(*xs)
    if dtype.kind == "c":
        raise u.DtypeError("this function is not defined for complex numbers")
    return [x if u.dtype_of(x) == dtype else bind("convert", x, dtype=dtype.name) for x in xs]


def _bits_of(x):
    int_type = _INT_OF_WIDTH[u.dtype_of(x).itemsize]
    return bind("bitcast_convert_type", x, dtype=np.dtype(int_type).name)


def _float_of(bits, dtype):
    return bind("bitcast_convert_type", bits, dtype=np.dtype(dtype).name)


def _const(value, like):
    return np.asarray(value, u.dtype_of(like))


# ---------------------------------------------------------------- floats
def frexp(x, /):
    """(mantissa in [0.5, 1) with x's sign, exponent as int32) with x = mantissa * 2**exponent;
    0, inf and nan give (x, 0)."""
    x = _inexact(x)[0]
    dtype = u.dtype_of(x)
    info = np.finfo(dtype)
    mask, bias = (1 << info.nexp) - 1, ((1 << info.nexp) - 1) >> 1
    subnormal = bind("lt", bind("abs", x), float(info.tiny))
    scaled = where(subnormal, bind("mul", x, _const(2.0 ** info.nmant, x)), x)
    bits = _bits_of(scaled)
    offset = where(subnormal, _const(-info.nmant, bits), _const(0, bits))
    field = bind("bitwise_and", bind("shift_right_logical", bits, _const(info.nmant, bits)),
                 _const(mask, bits))
    exponent = bind("add", offset, bind("sub", field, _const(bias - 1, bits)))
    mantissa_bits = bind("bitwise_or",
                         bind("bitwise_and", bits, _const(~(mask << info.nmant), bits)),
                         _const((bias - 1) << info.nmant, bits))
    special = bind("bitwise_or", bind("bitwise_or", isinf(x), isnan(x)), bind("eq", x, 0))
    mantissa = where(special, x, _float_of(mantissa_bits, dtype))
    exponent = where(special, _const(0, bits), exponent)
    return mantissa, bind("convert", exponent, dtype="int32")


def _exact_power_of_two(k, dtype):
    """2.0**k for integer k, from its bits in two normal halves (so subnormal and overflowing
    results round as the product does)."""
    info = np.finfo(dtype)
    bias = ((1 << info.nexp) - 1) >> 1
    int_type = np.dtype(_INT_OF_WIDTH[np.dtype(dtype).itemsize])
    k = bind("convert", bind("clamp", -4 * bias, k, 4 * bias), dtype=int_type.name)
    half = bind("floor_divide", k, np.asarray(2, int_type))
    out = None
    for part in (half, bind("sub", k, half)):
        part = bind("clamp", np.asarray(1 - bias, int_type), part, np.asarray(bias, int_type))
        bits = bind("shift_left", bind("add", part, np.asarray(bias, int_type)),
                    np.asarray(info.nmant, int_type))
        power = _float_of(bits, dtype)
        out = power if out is None else bind("mul", out, power)
    return out


def ldexp(x1, x2, /):
    """x1 * 2**x2 (x2 integer), exact until it under- or overflows."""
    x2 = _as_operand(x2)
    if u.kind(x2) not in "iub":
        raise u.DtypeError(f"ldexp: the exponent must be an integer array, not {u.dtype_of(x2)}")
    x1 = _inexact(x1)[0]
    mantissa, exponent = frexp(x1)  # split first: a tiny x1 with a large x2 stays finite
    total = bind("add", bind("convert", exponent, dtype="int64"),
                 bind("convert", x2, dtype="int64"))
    half = bind("floor_divide", total, np.asarray(2, np.int64))
    out = bind("mul", bind("mul", mantissa, _exact_power_of_two(half, u.dtype_of(x1))),
               _exact_power_of_two(bind("sub", total, half), u.dtype_of(x1)))
    return where(bind("bitwise_or", isinf(x1), bind("eq", x1, 0)), x1, out)


def nextafter(x1, x2, /):
    """The representable number after x1 in the direction of x2."""
    x, y = _inexact(x1, x2)
    from ._shape import broadcast_arrays
    x, y = broadcast_arrays(x, y)
    dtype = u.dtype_of(x)
    bits = _bits_of(x)
    one = _const(1, bits)
    outward = bind("eq", bind("lt", x, y), bind("gt", x, 0))  # the magnitude grows
    stepped = _float_of(where(outward, bind("add", bits, one), bind("sub", bits, one)), dtype)
    tiny = copysign(_const(np.finfo(dtype).smallest_subnormal, x), bind("sub", y, x))
    out = where(bind("eq", x, 0), tiny, stepped)
    out = where(bind("eq", x, y), y, out)
    return where(bind("bitwise_or", isnan(x), isnan(y)), _const(np.nan, x), out)


def spacing(x, /):
    """The distance from x to the next number away from zero (NumPy's sign convention)."""
    x = _inexact(x)[0]
    away = copysign(_const(np.inf, x), x)
    out = bind("sub", nextafter(x, away), x)
    return where(bind("eq", out, 0), copysign(_const(np.finfo(u.dtype_of(x)).smallest_subnormal,
                                                     x), x), out)


def modf(x, /, out=None):
    """(fractional part, integral part), both with x's sign."""
    x = _inexact(x)[0]
    whole = where(bind("ge", x, 0), bind("floor", x), bind("ceil", x))
    fraction = where(isinf(x), copysign(_const(0.0, x), x), bind("sub", x, whole))
    return fraction, whole


# ---------------------------------------------------------------- integers
def _unsigned(x):
    x = _as_operand(x)
    if u.kind(x) not in "iu":
        raise u.DtypeError(f"expected an integer array, not {u.dtype_of(x)}")
    uint = np.dtype(_UINT_OF_WIDTH[u.dtype_of(x).itemsize])
    return x if u.dtype_of(x) == uint else bind("bitcast_convert_type", x, dtype=uint.name)


def population_count(x):
    """The number of set bits of each element (in x's dtype), by the parallel bit count."""
    x = _as_operand(x)
    v = _unsigned(x)
    dtype = u.dtype_of(v)
    width = dtype.itemsize * 8
    c = lambda value: np.asarray(value & ((1 << width) - 1), dtype)  # noqa: E731
    v = bind("sub", v, bind("bitwise_and", bind("shift_right_logical", v, c(1)),
                            c(0x5555555555555555)))
    v = bind("add", bind("bitwise_and", v, c(0x3333333333333333)),
             bind("bitwise_and", bind("shift_right_logical", v, c(2)), c(0x3333333333333333)))
    v = bind("bitwise_and", bind("add", v, bind("shift_right_logical", v, c(4))),
             c(0x0F0F0F0F0F0F0F0F))
    if width > 8:
        v = bind("shift_right_logical", bind("mul", v, c(0x0101010101010101)), c(width - 8))
    return v if dtype == u.dtype_of(x) else bind("convert", v, dtype=u.dtype_of(x).name)


def count_leading_zeros(x):
    """The number of zero bits above the highest set bit (the width for 0), in x's dtype."""
    x = _as_operand(x)
    v = _unsigned(x)
    dtype = u.dtype_of(v)
    width = dtype.itemsize * 8
    shift = 1
    while shift < width:  # smear the highest set bit into every bit below it
        v = bind("bitwise_or", v, bind("shift_right_logical", v, np.asarray(shift, dtype)))
        shift *= 2
    zeros = bind("sub", np.asarray(width, dtype), population_count(v))
    return zeros if dtype == u.dtype_of(x) else bind("convert", zeros, dtype=u.dtype_of(x).name)


def bitwise_count(x, /):
    """The number of set bits of |x|, as uint8 (NumPy's convention)."""
    x = _as_operand(x)
    if u.kind(x) == "b":
        return bind("convert", x, dtype="uint8")
    magnitude = bind("abs", x) if u.kind(x) == "i" else x
    return bind("convert", population_count(magnitude), dtype="uint8")


def gcd(x1, x2, /):
    """The greatest common divisor, by Euclid's algorithm on all elements at once."""
    from ..control import while_loop
    from ._shape import broadcast_arrays
    a, b = (_as_operand(x) for x in (x1, x2))
    dtype = u.result_type_of(a, b)
    if dtype.kind not in "iu":
        raise u.DtypeError(f"gcd: integer arrays expected, not {dtype}")
    a, b = broadcast_arrays(*(bind("abs", bind("convert", x, dtype=dtype.name))
                              for x in (a, b)))

    def step(pair):
        a, b = pair
        moving = bind("ne", b, 0)
        safe = where(moving, b, np.asarray(1, dtype))
        return where(moving, b, a), where(moving, bind("rem", a, safe), np.asarray(0, dtype))

    def unfinished(pair):
        b = pair[1]
        return bind("reduce_or", bind("ne", b, 0), axes=tuple(range(u.ndim(b))))

    return while_loop(unfinished, step, (a, b))[0]


def lcm(x1, x2, /):
    a, b = _as_operand(x1), _as_operand(x2)
    d = gcd(a, b)
    dtype = u.dtype_of(d)
    a, b = (bind("convert", x, dtype=dtype.name) for x in (a, b))
    safe = where(bind("eq", d, 0), np.asarray(1, dtype), d)
    out = bind("abs", bind("mul", a, bind("floor_divide", b, safe)))
    return where(bind("eq", d, 0), np.asarray(0, dtype), out)
