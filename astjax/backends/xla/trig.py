"""float32 sin and cos as arithmetic XLA vectorises, in place of `stablehlo.sine`/`cosine`.

XLA's CPU backend computes sine and cosine with a call of the C library per element: on 4M
float32 elements 24 ms, against 3 ms for exp, which it computes by a polynomial in vectors
(most of chain_4M's 41 ms a call on XLA, JAX's as ours). Here, as vecmath's fast path for
the Numba backend:

    sin(x) = (-1)**n sin(x - n pi),             n = rint(x/pi)
    cos(x) = (-1)**n sin(x - (n - 1/2) pi),     n = rint(x/pi + 1/2)

all in float64, rounded to float32 once at the end: the reduction with pi in two parts, the
first with 33 significant bits, so m * PI_HI is exact for |m| < 2**20 (no fused
multiply-add needed, which StableHLO does not have), and sin of the reduced argument
(|r| <= pi/2) by its Taylor series to r**13 (error below r**15/15! < 7e-10). Within an ulp
of the exact result, cos(0) = 1 and sin(-0) = -0 (tests/test_xla_trig.py); 9 ms a call on
4M elements where XLA's sine took 24.

The fast form serves arrays whose every element is below LIMIT in magnitude (a NaN or an
infinity is not): one reduction over the array picks it or XLA's own operation, as a
`stablehlo.case` whose branches read the array."""
import math
from fractions import Fraction

import numpy as np

from astjax.backends.vecmath.trig import _pi_scaled

LIMIT = 2.0**18
MIN_ELEMENTS = 1024  # smaller arrays keep XLA's operation (a test and a branch cost more)
PI_HI = float.fromhex("0x1.921fb544p+1")  # pi to 33 significant bits
# pi - PI_HI to float64's precision, from pi to 300 bits (np.pi - PI_HI would carry np.pi's
# own rounding, 1.2e-16, times n into r: 25 ulps of sin(x) for x near 10**4 pi)
PI_LO = float(Fraction(_pi_scaled(300), 1 << 300) - Fraction(PI_HI))
INV_PI = 1.0 / np.pi
# sin(r) = r + r**3 (SIN_TAYLOR[0] + r**2 (SIN_TAYLOR[1] + ...)): -1/3!, 1/5!, ... -1/13!
SIN_TAYLOR = [(-1.0) ** (k + 1) / math.factorial(2 * k + 3) for k in range(6)]


def wanted(dtype, shape) -> bool:
    """Whether sin/cos of a float32 array of this shape take the fast form."""
    return np.dtype(dtype) == np.float32 and int(np.prod(shape)) >= MIN_ELEMENTS


def sin_cos(body, x, kind: str, exact_op: str, hint: str):
    """sin or cos (`kind`) of the float32 Value x: the fast form where every |x| < LIMIT,
    else XLA's operation `exact_op`."""
    largest = body.reduce([body.unary("stablehlo.abs", x)],
                          [body.constant(0.0, np.float32)], range(x.ndim),
                          lambda r, a, b: [r.binary("stablehlo.maximum", a[0], b[0])],
                          hint="largest")[0]
    small = body.compare(largest, body.constant(LIMIT, np.float32), "LT")  # (NaN: False)
    index = body.select(small, body.constant(0, np.int32), body.constant(1, np.int32))
    fast, exact = body.region([]), body.region([])
    fast.ret([_fast(fast, x, kind)])
    exact.ret([exact.op1(exact_op, [x], x.shape, np.float32)])
    return body.op("stablehlo.case", [index], [(x.shape, np.float32)], "",
                   [fast.text(), exact.text()], hint=hint)[0]


def _fast(body, x, kind):
    shape = x.shape

    def c(value, dtype=np.float64):
        return body.constant(value, dtype, shape)

    def mul(a, b):
        return body.binary("stablehlo.multiply", a, b)

    def add(a, b):
        return body.binary("stablehlo.add", a, b)

    def sub(a, b):
        return body.binary("stablehlo.subtract", a, b)

    xd = body.convert(x, np.float64)
    if kind == "sin":
        n = body.unary("stablehlo.round_nearest_even", mul(xd, c(INV_PI)))
        m = n
    else:
        n = body.unary("stablehlo.round_nearest_even", add(mul(xd, c(INV_PI)), c(0.5)))
        m = sub(n, c(0.5))
    r = sub(sub(xd, mul(m, c(PI_HI))), mul(m, c(PI_LO)))
    z = mul(r, r)
    p = c(SIN_TAYLOR[-1])
    for coefficient in reversed(SIN_TAYLOR[:-1]):
        p = add(mul(p, z), c(coefficient))
    s = body.convert(add(r, mul(mul(r, z), p)), np.float32)  # (the one rounding to float32)
    parity = body.binary("stablehlo.and", body.convert(n, np.int32), body.constant(1, np.int32,
                                                                                   shape))
    odd = body.compare(parity, body.constant(1, np.int32, shape), "EQ")
    out = body.select(odd, body.unary("stablehlo.negate", s), s)
    if kind == "sin":  # sin(-0) = -0
        out = body.select(body.compare(x, c(0.0, np.float32), "EQ"), x, out)
    return out
