"""float32 sin, cos and tan as arithmetic XLA vectorises, in place of `stablehlo.sine`,
`cosine` and `tan`.

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

    tan(x) = tan(r) = sin(r) / cos(r)     (n even)
           = -cos(r) / sin(r)            (n odd),     r = x - n pi/2,  n = rint(2x/pi)

with both Taylor series on |r| <= pi/4 (errors below 3e-14 and 1e-15), one division and one
rounding, likewise within an ulp; 4M elements 58-71 -> 6-11 ms.

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
# cos(r) = 1 + r**2 (COS_TAYLOR[0] + r**2 (COS_TAYLOR[1] + ...)): -1/2!, 1/4!, ... 1/14!
COS_TAYLOR = [(-1.0) ** (k + 1) / math.factorial(2 * k + 2) for k in range(7)]
KINDS = ("sin", "cos", "tan")


def wanted(dtype, shape) -> bool:
    """Whether sin/cos/tan of a float32 array of this shape take the fast form."""
    return np.dtype(dtype) == np.float32 and int(np.prod(shape)) >= MIN_ELEMENTS


def fast_or_exact(body, x, kind: str, exact_op: str, hint: str):
    """sin, cos or tan (`kind`) of the float32 Value x: the fast form where every |x| < LIMIT,
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


class _Arithmetic:
    """float64 arithmetic on Values of one shape, in `body`."""

    def __init__(self, body, shape):
        self.body, self.shape = body, shape

    def c(self, value, dtype=np.float64):
        return self.body.constant(value, dtype, self.shape)

    def mul(self, a, b):
        return self.body.binary("stablehlo.multiply", a, b)

    def add(self, a, b):
        return self.body.binary("stablehlo.add", a, b)

    def sub(self, a, b):
        return self.body.binary("stablehlo.subtract", a, b)

    def series(self, z, coefficients):
        """coefficients[0] + z (coefficients[1] + z (...)), by Horner's rule."""
        p = self.c(coefficients[-1])
        for coefficient in reversed(coefficients[:-1]):
            p = self.add(self.mul(p, z), self.c(coefficient))
        return p

    def reduced(self, xd, scale, shift=0.0):
        """(n, x - (n - shift) pi / scale), n = rint(x scale / pi + shift): the reduction with
        pi in two parts (PI_HI / scale exact: scale is a power of two)."""
        scaled = self.mul(xd, self.c(scale * INV_PI))
        n = self.body.unary("stablehlo.round_nearest_even",
                            self.add(scaled, self.c(shift)) if shift else scaled)
        m = self.sub(n, self.c(shift)) if shift else n
        r = self.sub(self.sub(xd, self.mul(m, self.c(PI_HI / scale))),
                     self.mul(m, self.c(PI_LO / scale)))
        return n, r

    def odd(self, n):
        """Whether the float64 integer n is odd (i1)."""
        body = self.body
        parity = body.binary("stablehlo.and", body.convert(n, np.int32),
                             body.constant(1, np.int32, self.shape))
        return body.compare(parity, body.constant(1, np.int32, self.shape), "EQ")


def _fast(body, x, kind):
    a = _Arithmetic(body, x.shape)
    xd = body.convert(x, np.float64)
    if kind == "tan":
        n, r = a.reduced(xd, 2.0)
        z = a.mul(r, r)
        s = a.add(r, a.mul(a.mul(r, z), a.series(z, SIN_TAYLOR)))
        c = a.add(a.c(1.0), a.mul(z, a.series(z, COS_TAYLOR)))
        quotient = body.select(a.odd(n), body.unary("stablehlo.negate", body.binary(
            "stablehlo.divide", c, s)), body.binary("stablehlo.divide", s, c))
        out = body.convert(quotient, np.float32)  # (the one rounding to float32)
        return body.select(body.compare(x, a.c(0.0, np.float32), "EQ"), x, out)  # tan(-0) = -0
    n, r = a.reduced(xd, 1.0, 0.0 if kind == "sin" else 0.5)
    z = a.mul(r, r)
    s = body.convert(a.add(r, a.mul(a.mul(r, z), a.series(z, SIN_TAYLOR))), np.float32)
    out = body.select(a.odd(n), body.unary("stablehlo.negate", s), s)
    if kind == "sin":  # sin(-0) = -0
        out = body.select(body.compare(x, a.c(0.0, np.float32), "EQ"), x, out)
    return out
