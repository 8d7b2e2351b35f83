"""lax's bit-level functions: bitcast_convert_type, population_count, clz, mulhi, nextafter,
reduce_precision."""
import numpy as np

from ..numpy import _util as u
from ..numpy._bits import count_leading_zeros, nextafter as _nextafter, population_count
from ..numpy._creation import _as_operand
from ..numpy._util import bind

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_INT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def bitcast_convert_type(operand, new_dtype):
    """operand's bits read as new_dtype (of the same width; a different width is refused)."""
    operand = _as_operand(operand)
    old, new = u.dtype_of(operand), u.dtype(new_dtype)
    if old.itemsize != new.itemsize:
        raise u.DtypeError(f"bitcast_convert_type from {old} to {new}: the widths differ",
                           hint="bitcast between dtypes of one width (e.g. float32 <-> int32)")
    return operand if old == new else bind("bitcast_convert_type", operand, dtype=new.name)


def clz(x):
    return count_leading_zeros(x)


def nextafter(x1, x2):
    return _nextafter(x1, x2)


def mulhi(x, y, /):
    """The high half of the double-width product of two integers."""
    x, y = _as_operand(x), _as_operand(y)
    dtype = u.result_type_of(x, y)
    if dtype.kind not in "iu":
        raise u.DtypeError(f"mulhi: integer operands expected, not {dtype}")
    bits = dtype.itemsize * 8
    x, y = (bind("convert", v, dtype=dtype.name) for v in (x, y))
    if bits <= 32:
        wide = np.dtype((_INT if dtype.kind == "i" else _UINT)[dtype.itemsize * 2])
        product = bind("mul", bind("convert", x, dtype=wide.name),
                       bind("convert", y, dtype=wide.name))
        return bind("convert", bind("shift_right_arithmetic", product, np.asarray(bits, wide)),
                    dtype=dtype.name)
    return _mulhi64(x, y, dtype)


def _mulhi64(x, y, dtype):
    """64 x 64 -> high 64 bits from 32-bit halves (unsigned), corrected for signed operands."""
    u64 = np.dtype(np.uint64)
    a, b = (bind("bitcast_convert_type", v, dtype="uint64") if dtype.kind == "i" else v
            for v in (x, y))
    lo_mask, shift = np.asarray(0xFFFFFFFF, u64), np.asarray(32, u64)
    a_lo, a_hi = bind("bitwise_and", a, lo_mask), bind("shift_right_logical", a, shift)
    b_lo, b_hi = bind("bitwise_and", b, lo_mask), bind("shift_right_logical", b, shift)
    lo_lo, hi_lo = bind("mul", a_lo, b_lo), bind("mul", a_hi, b_lo)
    lo_hi, hi_hi = bind("mul", a_lo, b_hi), bind("mul", a_hi, b_hi)
    cross = bind("add", bind("add", bind("shift_right_logical", lo_lo, shift),
                             bind("bitwise_and", hi_lo, lo_mask)), lo_hi)
    high = bind("add", bind("add", hi_hi, bind("shift_right_logical", hi_lo, shift)),
                bind("shift_right_logical", cross, shift))
    if dtype.kind == "u":
        return high
    # signed: subtract b where a < 0 and a where b < 0 (two's complement correction)
    high = bind("sub", high, bind("select", bind("lt", x, 0), b, np.asarray(0, u64)))
    high = bind("sub", high, bind("select", bind("lt", y, 0), a, np.asarray(0, u64)))
    return bind("bitcast_convert_type", high, dtype=dtype.name)


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """operand rounded (to nearest even) to a float with this many exponent and mantissa bits,
    overflowing to inf and flushing below its normal range to zero, as XLA's ReducePrecision."""
    x = _as_operand(operand)
    dtype = u.dtype_of(x)
    if dtype.kind != "f":
        raise u.DtypeError(f"reduce_precision: a floating-point operand expected, not {dtype}")
    info = np.finfo(dtype)
    ebits, mbits = int(exponent_bits), int(mantissa_bits)
    if ebits < 1 or mbits < 0:
        raise u.DtypeError("reduce_precision: exponent_bits >= 1 and mantissa_bits >= 0")
    int_t = np.dtype(_UINT[dtype.itemsize])
    c = lambda v: np.asarray(v, int_t)  # noqa: E731
    bits = bind("bitcast_convert_type", x, dtype=int_t.name)
    if mbits < info.nmant:
        drop = info.nmant - mbits
        last_kept = bind("bitwise_and", bind("shift_right_logical", bits, c(drop)), c(1))
        bias = bind("add", c((1 << (drop - 1)) - 1), last_kept)
        kept = ~((1 << drop) - 1) & ((1 << (8 * dtype.itemsize)) - 1)
        bits = bind("bitwise_and", bind("add", bits, bias), c(kept))
    if ebits < info.nexp:
        sign_mask = c(1 << (8 * dtype.itemsize - 1))
        exp_bias = (1 << (info.nexp - 1)) - 1
        new_bias = (1 << (ebits - 1)) - 1
        max_exp = c((exp_bias + new_bias) << info.nmant)
        min_exp = c((exp_bias - new_bias) << info.nmant)
        exponent_mask = c(((1 << info.nexp) - 1) << info.nmant)
        exponent = bind("bitwise_and", bits, exponent_mask)
        sign = bind("bitwise_and", bits, sign_mask)
        bits = bind("select", bind("gt", exponent, max_exp),
                    bind("bitwise_or", sign, exponent_mask), bits)  # overflow: inf
        bits = bind("select", bind("le", exponent, min_exp), sign, bits)  # underflow: 0
    out = bind("bitcast_convert_type", bits, dtype=dtype.name)
    nan = bind("ne", x, x)
    return bind("select", nan, x, out)


__all__ = ["bitcast_convert_type", "population_count", "clz", "mulhi", "nextafter",
           "reduce_precision"]
