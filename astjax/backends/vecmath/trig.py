"""vecmath's trigonometric functions: sin, cos, tan (Payne-Hanek for every finite argument,
Cody-Waite fast paths for the vector versions), arcsin, arccos, arctan, arctan2 and the
inverse hyperbolic functions.  Emitters ``(V, ...) -> V``; vecmath registers them."""
import math

import numpy as np

from .ir import (V, F32, F64, I32, I64, fma, select, isnan, signbit, poly, two_sum,
                         fast_two_sum, two_prod, global_table, load_table, fshl, sqrt as _vsqrt,
                         fabs as _fabs, rint as _rint, copysign as _copysign)
from .explog import INF, NAN, LN2, _c, _log1p

# ==========================================================================================
# Constants
# ==========================================================================================
# sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4
SIN_S32 = [-0.1666666716337204, 0.008333330973982811, -0.0001983979163924232,
           2.7216915441385936e-06]
COS_C32 = [0.0416666679084301, -0.0013888883404433727, 2.479943577782251e-05,
           -2.720325653626787e-07]
SIN_S64 = [-1.66666666666666324348e-01, 8.33333333332248946124e-03,  # fdlibm k_sin.c
           -1.98412698298579493134e-04, 2.75573137070700676789e-06,
           -2.50507602534068634195e-08, 1.58969099521155010221e-10]
COS_C64 = [4.16666666666666019037e-02, -1.38888888888741095749e-03,  # fdlibm k_cos.c
           2.48015872894767294178e-05, -2.75573143513906633035e-07,
           2.08757232129817482790e-09, -1.13596475577881948265e-11]



# ==========================================================================================
# Trigonometric: Payne-Hanek reduction by table, in float64 for both precisions
# ==========================================================================================
def _arctan_inv_scaled(m, bits):
    """arctan(1/m) * 2**bits, rounded down (integer series)."""
    one = 1 << bits
    total, term, k, m2 = 0, one // m, 1, m * m
    while term:
        total += term // k if (k // 2) % 2 == 0 else -(term // k)
        term //= m2
        k += 2
    return total


def _pi_scaled(bits):
    """pi * 2**bits (within a few units) from Machin's formula in integer arithmetic (no
    mpmath at run time, no long hex literal to mistype)."""
    return 4 * (4 * _arctan_inv_scaled(5, bits) - _arctan_inv_scaled(239, bits))


def _two_over_pi_bits(nbits):
    """floor(2/pi * 2**nbits)."""
    guard = 64
    return (2 << (2 * (nbits + guard))) // _pi_scaled(nbits + guard) >> guard


def _build_pio2_table():
    """For each biased double exponent e, four doubles T0..T3 with
    x * (T0+T1+T2+T3) == x * 2/pi (mod 4) for every x of exponent e, |x| kept to
    ~210 bits: bits of 2/pi worth 4 or more once multiplied by x are dropped.
    Exponents above 1023+600 store T * 2**600; the code divides x by 2**600 to match,
    so no entry underflows."""
    nb = 1200 + 53 * 4 + 64
    C = _two_over_pi_bits(nb)  # 2/pi = C / 2**nb
    tab = []
    for e in range(2048):
        E = max(e, 1) - 1075  # x = M * 2**E, M < 2**53
        k0 = max(E - 1, 1)  # keep bits b_k (weight 2**-k) with k >= E - 1
        scale = 600 if e > 1023 + 600 else 0
        for i in range(4):
            lo_k = k0 + 53 * i
            # bits k in [lo_k, lo_k + 52] of 2/pi, as an integer times 2**-(lo_k+52)
            chunk = (C >> (nb - (lo_k + 52))) & ((1 << 53) - 1)
            tab.append(math.ldexp(float(chunk), -(lo_k + 52) + scale))
    return tab


_PIO2_TABLE = _build_pio2_table()
PIO2_HI, PIO2_LO = 1.5707963267948966, 6.123233995736766e-17


def _rem_pio2(xd):
    """Float64 V xd (finite) -> (q as int64, rh, rl): xd = q*pi/2 + rh + rl, |rh| <~ pi/4.

    Exact products (fma) of x with 4 table doubles; integer parts are removed as they
    appear so the running sum stays below 2 and its rounding error ~2**-105 absolute."""
    b = xd.b
    tab = global_table(b, "vecmath_pio2_table", _PIO2_TABLE, F64)
    e = (xd.bits().lshr(52)) & 0x7FF
    xs = select(e > 1023 + 600, xd * 2.0**-600, xd)
    base = e << 2
    t = [load_table(b, tab, base + i) for i in range(4)]

    h, l = two_prod(xs, t[0])
    n = _rint(h)
    q = n.to_int()
    h, l = two_sum(h - n, l)  # exact: value < 2, bits >= 2**-51
    ph, pl = two_prod(xs, t[1])
    n = _rint(ph)
    q = q + n.to_int()
    h, l2 = two_sum(h, ph - n)
    l = l + (l2 + pl)
    n = _rint(h)
    q = q + n.to_int()
    h, l = fast_two_sum(h - n, l)
    ph, pl = two_prod(xs, t[2])
    h, l2 = two_sum(h, ph)
    l = l + (l2 + fma(xs, t[3], pl))
    h, l = two_sum(h, l)
    n = _rint(h)
    q = q + n.to_int()
    h, l = fast_two_sum(h - n, l)
    # r = (h + l) * pi/2 in double-double
    rh, rl = two_prod(h, PIO2_HI)
    rl = fma(h, PIO2_LO, fma(l, PIO2_HI, rl))
    rh, rl = fast_two_sum(rh, rl)
    return q, rh, rl


# 2/pi bits 1..256 as four u64 words, preceded by a zero word so a window may start
# up to 63 bits before the binary point (arguments down to 2**-39).
_TOP = _two_over_pi_bits(256)
_A_WORDS = [0] + [(_TOP >> (64 * (3 - i))) & (2**64 - 1) for i in range(4)]


def _u64(x, c):
    """u64 constant as a signed i64 V (LLVM integers are sign-agnostic)."""
    return x.const(c - 2**64 if c >= 2**63 else c, I64)


def _rem_pio2_f32(x):
    """Float32 V (finite) -> (q as int32, h, l float32): x = q*pi/2 + h + l, 32+ bits.

    Payne-Hanek in 64-bit integers (as in ARM's optimized-routines sinf), but the 96-bit
    window of 2/pi is cut out of constants with funnel shifts instead of a table lookup:
    gathers cost more than the whole rest of sin on this hardware.  x = M * 2**E with a
    24-bit M; bits of 2/pi worth 4 or more once multiplied by x are skipped, so
    M * window (mod 2**96) is x*2/pi mod 4 in 2.94 fixed point; its top 64 bits (2.62)
    give the quadrant and the fraction.  Valid for 2**-39 <= |x| < 2**128.
    """
    ix = x.bits()
    e = (ix >> 23) & 0xFF
    m = ((ix & 0x7FFFFF) | 0x800000).to(I64)
    s = (e - 150 - 1 + 63).to(I64)  # window start, in bits after the leading zero word
    s = select(s < 0, s.const(0), s)
    j, sh = s >> 6, s & 63
    a = [_u64(s, w) for w in _A_WORDS]
    # words j, j+1, j+2 of a (j in 0..2), by select: no gather
    w0 = select(j.eq(0), a[0], select(j.eq(1), a[1], a[2]))
    w1 = select(j.eq(0), a[1], select(j.eq(1), a[2], a[3]))
    w2 = select(j.eq(0), a[2], select(j.eq(1), a[3], a[4]))
    hi = fshl(w0, w1, sh)  # window bits 0..63
    lo = fshl(w1, w2, sh).lshr(32)  # window bits 64..95
    mask = 0xFFFFFFFF
    top = ((m * hi.lshr(32)) << 32) + m * (hi & mask) + (m * lo).lshr(32)  # wraps mod 2**64
    n = (top + (1 << 61)) >> 62  # nearest quadrant (arithmetic shift of a wrapped value)
    r = top - (n << 62)  # signed 2.62 fraction in [-0.5, 0.5)
    neg = ix < 0  # the reduction used |x|: sin/cos/tan odd/even symmetry does the rest
    r, n = select(neg, -r, r), select(neg, -n, n)
    rd = r.to_float() * (PIO2_HI * 2.0**-62)  # radians, double
    h = rd.to(F32)
    l = (rd - h.to(F64)).to(F32)
    return n.to(I32), h, l


def _reduce(x):
    """-> (q, rh, rl) in x's precision (q in x's integer width), for every finite x."""
    if x.is32:
        return _rem_pio2_f32(x)
    return _rem_pio2(x)


# Below this, Cody-Waite reduction with pi/2 in two (float32) or three (float64) doubles
# is as accurate as Payne-Hanek: n*C1 is exact inside the fma and x - n*C1 is exact
# (|n| < 2**28, result below 1 with no bits under 2**-53), and the pi/2 left over after
# the last constant, n * 5.6e-50, is far below the closest any float comes to a multiple
# of pi/2 (float64: 2**-61 relative).
FAST_TRIG_LIMIT = 2.0**28
TWO_OVER_PI = 0.6366197723675814
PIO2_C3 = -1.4973849048591698e-33  # pi/2 = PIO2_HI + PIO2_LO + PIO2_C3 + 5.6e-50


def _reduce_fast(x):
    """_reduce for |x| < FAST_TRIG_LIMIT (other lanes are reduced as 0)."""
    x = select(_fabs(x) < FAST_TRIG_LIMIT, x, x.f(0.0))
    if x.is32:
        xd = x.to(F64)
        n = _rint(xd * TWO_OVER_PI)
        r = fma(n, -PIO2_LO, fma(n, -PIO2_HI, xd))  # relative error 2**-53
        h = r.to(F32)
        return n.to_int().to(I32), h, (r - h.to(F64)).to(F32)
    n = _rint(x * TWO_OVER_PI)
    r1 = fma(n, -PIO2_HI, x)  # exact
    ph, pl = two_prod(n, PIO2_LO)
    rh, rl = two_sum(r1, -ph)
    rh, rl = two_sum(rh, rl - fma(n, PIO2_C3, pl))
    return n.to_int(), rh, rl


def _slow_trig(x, limit=FAST_TRIG_LIMIT):
    """Lanes that need Payne-Hanek: finite, and at or past the fast path's limit."""
    a = _fabs(x)
    return (a >= limit) & (a < INF)


def _sin_kernel(h, l):
    z = h * h
    S = poly(z, SIN_S32 if h.is32 else SIN_S64)
    return h + fma(h * z, S, l)


def _cos_kernel(h, l):
    z = h * h
    C = poly(z, COS_C32 if h.is32 else COS_C64)
    hz = 0.5 * z
    w = 1.0 - hz
    # fdlibm: w + (((1-w)-hz) + (z*z*C - h*l)); (1-w)-hz recovers the rounding of w
    return w + (((1.0 - w) - hz) + fma(z * z, C, -(h * l)))


def _trig_input(x):
    """Finite stand-in for inf/nan so the reduction never sees them (result fixed later)."""
    return select(_fabs(x) < INF, x, x.f(0.0))


def _trig(kind, reduce):
    """sin/cos/tan of x from a reduction (q, h, l): x = q*pi/2 + h + l."""
    def fn(x):
        q, h, l = reduce(_trig_input(x))
        s, c = _sin_kernel(h, l), _cos_kernel(h, l)
        tiny = _fabs(x) < _c(x, 2.0**-12, 0.0)  # also: tiny f32 lie below the PH window
        if kind == "sin":
            res = select((q & 1).eq(0), s, c)
            res = select((q & 2).eq(0), res, -res)
            res = select(tiny | x.eq(0.0), x, res)  # keeps -0
        elif kind == "cos":
            res = select((q & 1).eq(0), c, -s)
            res = select((q & 2).eq(0), res, -res)
            res = select(tiny, x.f(1.0), res)
        else:  # tan = sin/cos of the reduced argument, -cos/sin in odd quadrants
            odd = (q & 1).ne(0)
            res = select(odd, -c, s) / select(odd, s, c)
            res = select(tiny | x.eq(0.0), x, res)
        return select(_fabs(x) < INF, res, x - x)
    return fn


# sin(r) = r + r^3 P(r^2) on |r| <= pi/2 + 1e-3, float32 coefficients, relative error
# 2.2e-8 after their rounding (vecmath_fit)
SIN_HALFPI_32 = [-0.1666666716337204, 0.008333330973982811, -0.00019840867025777698,
                 2.7525297809916083e-06, -2.3887364974939373e-08]
INV_PI_32 = 0.31830987334251404  # float32(1/pi)


def _pi_parts_f32():
    """pi = A + B + C + (|rest| < 2**-72), each part the float32 nearest what is left (pi
    from Machin's formula in integers, 300 bits)."""
    from fractions import Fraction
    rest = Fraction(_pi_scaled(300), 1 << 300)
    parts = []
    for _ in range(3):
        part = float(np.float32(float(rest)))
        parts.append(part)
        rest -= Fraction(part)
    return parts


PI_A_32, PI_B_32, PI_C_32 = _pi_parts_f32()
# Below this the float32 reduction keeps sin and cos within 2 ulps (measured 1.98 over random
# arguments, 1.48 next to multiples of pi); above, Payne-Hanek takes the vector.
F32_TRIG_LIMIT = 2.0**16


def _sin_cos_f32_fast(x, kind, finite=False):
    """float32 sin/cos for |x| < F32_TRIG_LIMIT, all in float32 (8 lanes on AVX2, where the
    former double evaluation ran 4): reduce mod pi (not pi/2) so one odd polynomial serves
    every quadrant and the sign comes from n's parity.

    sin(x) = (-1)**n sin(x - n pi),             n = rint(x/pi)
    cos(x) = (-1)**n sin(x - (n - 1/2) pi),     n = rint(x/pi + 1/2)
    m*pi is subtracted in three fmas with pi in three float32 parts: from |x| >= 2 on the
    first is exact (m * A and x are multiples of half A's last bit, and the difference is
    below 2), the others round once each, near an ulp of r where x is close to a multiple
    of pi.
    """
    # finite: every lane is finite and below the limit (the caller tested it)
    xs = x if finite else select(_fabs(x) < F32_TRIG_LIMIT, x, x.f(0.0))
    if kind == "sin":
        n = _rint(xs * INV_PI_32)
        m = n
    else:
        n = _rint(fma(xs, x.f(INV_PI_32), x.f(0.5)))
        m = n - 0.5
    r = fma(m, x.f(-PI_A_32), xs)
    r = fma(m, x.f(-PI_B_32), r)
    r = fma(m, x.f(-PI_C_32), r)
    z = r * r
    sr = fma(r * z, poly(z, SIN_HALFPI_32), r)
    res = (sr.bits() ^ (n.to_int() << 31)).as_float()  # (-1)**n
    if kind == "sin":
        res = select(x.eq(0.0), x, res)  # keeps -0
    return res if finite else select(_fabs(x) < INF, res, x - x)


def _with_fast_reduction(kind):
    full = _trig(kind, _reduce)
    fast64 = _trig(kind, _reduce_fast)

    def fast(x):
        if x.is32 and kind != "tan":
            return _sin_cos_f32_fast(x, kind), _slow_trig(x, F32_TRIG_LIMIT)
        return fast64(x), _slow_trig(x)

    def ordinary(x):
        """float32 sin and cos: (the lanes below the limit, the fast path for a vector of
        such lanes alone), which leaves out the selects that keep inf and nan out of the
        reduction (a vector with another lane runs `fast` as before)."""
        if x.is32 and kind != "tan":
            return _fabs(x) < F32_TRIG_LIMIT, lambda: _sin_cos_f32_fast(x, kind, finite=True)
        return None

    fast.ordinary = ordinary

    full.__doc__ = "%s(x), correctly reduced for all finite x." % kind
    return full, fast


_sin, _sin_fast = _with_fast_reduction("sin")
_cos, _cos_fast = _with_fast_reduction("cos")
_tan, _tan_fast = _with_fast_reduction("tan")


# ==========================================================================================
# Inverse trigonometric
# ==========================================================================================
ATAN_P32 = [0.3333333432674408, -0.1999901533126831, 0.1424770951271057,
            -0.10595417767763138, 0.06031198799610138]
ATAN_P64 = [3.33333333333329318027e-01, -1.99999999998764832476e-01,  # fdlibm s_atan.c
            1.42857142725034663711e-01, -1.11111104054623557880e-01,
            9.09088713343650656196e-02, -7.69187620504482999495e-02,
            6.66107313738753120669e-02, -5.83357013379057348645e-02,
            4.97687799461593236017e-02, -3.65315727442169155270e-02,
            1.62858201153657823623e-02]
# atan(c) for c = 0.5, 1, 1.5, inf as hi + lo, per precision
ATAN_HI_32 = [0.46364760398864746, 0.7853981852531433, 0.9827937483787537, 1.5707963705062866]
ATAN_LO_32 = [5.01215868808913e-09, -2.1855694143368964e-08, -2.5131424052915463e-08,
              -4.371138828673793e-08]
ATAN_HI_64 = [0.4636476090008061, 0.7853981633974483, 0.982793723247329, 1.5707963267948966]
ATAN_LO_64 = [2.2698777452961687e-17, 3.061616997868383e-17, 1.3903311031230998e-17,
              6.123233995736766e-17]
PI_HI_32, PI_LO_32 = 3.1415927410125732, -8.742277657347586e-08
PI_HI_64, PI_LO_64 = 3.141592653589793, 1.2246467991473532e-16


def _pick(conds, vals, x):
    """select over a ladder: vals[i] where conds[i] first holds, else vals[-1]."""
    out = x.f(vals[-1]) if not isinstance(vals[-1], V) else vals[-1]
    for c, v in reversed(list(zip(conds, vals[:-1]))):
        out = select(c, x.f(v) if not isinstance(v, V) else v, out)
    return out


def _atan_pos(t):
    """atan(t) for t >= 0 (inf ok), fdlibm's five intervals as selects: the reduced
    argument is (A t + B)/(C t + D) and the result atan(c) + atan(w)."""
    c = [t < 7 / 16, t < 11 / 16, t < 19 / 16, t < 39 / 16]
    A = _pick(c, [1.0, 2.0, 1.0, 1.0, 0.0], t)
    B = _pick(c, [0.0, -1.0, -1.0, -1.5, -1.0], t)
    C = _pick(c, [0.0, 1.0, 1.0, 1.5, 1.0], t)
    D = _pick(c, [1.0, 2.0, 1.0, 1.0, 0.0], t)
    tt = select(t < INF, t, t.f(1.0))  # keep inf out of fma: w = -1/inf = -0 anyway
    w = fma(tt, A, B) / fma(tt, C, D)
    w = select(t < INF, w, t.f(-0.0))
    hi = _pick(c, [0.0] + (ATAN_HI_32 if t.is32 else ATAN_HI_64), t)
    lo = _pick(c, [0.0] + (ATAN_LO_32 if t.is32 else ATAN_LO_64), t)
    z = w * w
    ws = w * (z * poly(z, ATAN_P32 if t.is32 else ATAN_P64))
    return hi - ((ws - lo) - w)


def _arctan(x):
    return select(isnan(x), x, _copysign(_atan_pos(_fabs(x)), x))


def _arctan2(y, x):
    """C99 atan2: atan(|y/x|) folded into the right quadrant; zeros and infinities by
    choosing the ratio (0/0 -> 0, inf/inf -> 1) before the kernel."""
    ay, ax = _fabs(y), _fabs(x)
    t = ay / ax
    t = select(ay.eq(0.0), y.f(0.0), t)  # 0/0, 0/x
    t = select(ay.eq(INF) & ax.eq(INF), y.f(1.0), t)
    z = _atan_pos(t)
    pih, pil = (PI_HI_32, PI_LO_32) if y.is32 else (PI_HI_64, PI_LO_64)
    z = select(signbit(x), pih - (z - pil), z)
    return select(isnan(x) | isnan(y), x + y, _copysign(z, y))


ASIN_P32 = [0.1666666716337204, 0.07500193268060684, 0.044567354023456573,
            0.03143800050020218, 0.015697261318564415, 0.03589877858757973]
ASIN_P64 = [0.16666666666666666, 0.07500000000109468, 0.04464285698258502,
            0.03038195369501397, 0.02237187271239998, 0.01735815625231326,
            0.013899128294272187, 0.012085440650666837, 0.00686365499938079,
            0.018670934404183007, -0.014961089071539225, 0.031095141410582377]


def _asin_parts(x):
    """-> (small, s, c, p): |x| <= 1/2: p = asin(|x|); else s = sqrt((1-|x|)/2) (+ c, its
    rounding error via fma) and p = asin(s), so asin(|x|) = pi/2 - 2p."""
    a = _fabs(x)
    small = a <= 0.5
    z = select(small, a * a, (1.0 - a) * 0.5)  # 1-|a| exact for |a| >= 1/2
    zc = select(z > 0.0, z, z.f(0.0))  # |x| > 1: keep sqrt quiet (result set to nan later)
    s = select(small, a, _vsqrt(zc))
    c = select(small | zc.eq(0.0), a.f(0.0), fma(-s, s, zc) / (s + s))  # sqrt(z) = s + c
    P = z * poly(z, ASIN_P32 if x.is32 else ASIN_P64)
    p = fma(s, P, c) + s  # asin(s + c) ~ s + c + s*P
    return small, s, c, p, P


def _arcsin(x):
    small, s, c, p, P = _asin_parts(x)
    pio2h = _c(x, PIO2_HI, PIO2_HI)
    pio2l = _c(x, -4.371138828673793e-08, PIO2_LO)
    big = (pio2h - 2.0 * s) - (2.0 * fma(s, P, c) - pio2l)
    res = _copysign(select(small, p, big), x)
    res = select(_fabs(x) > 1.0, x.f(NAN), res)
    return select(isnan(x), x, res)


def _arccos(x):
    """|x| <= 1/2: pi/2 - asin(x); x > 1/2: 2 asin(sqrt((1-x)/2)); x < -1/2: pi - that."""
    small, s, c, p, P = _asin_parts(x)
    pio2h = _c(x, PIO2_HI, PIO2_HI)
    pio2l = _c(x, -4.371138828673793e-08, PIO2_LO)
    pih, pil = (PI_HI_32, PI_LO_32) if x.is32 else (PI_HI_64, PI_LO_64)
    ps = _copysign(p, x)
    mid = pio2h - (ps - pio2l)
    pos = 2.0 * p
    neg = pih - (2.0 * p - pil)
    res = select(small, mid, select(x > 0.0, pos, neg))
    res = select(_fabs(x) > 1.0, x.f(NAN), res)
    return select(isnan(x), x, res)


def _arcsinh(x):
    """asinh(|x|) = log1p(a + a^2/(1 + sqrt(1 + a^2))): every term positive, so no
    cancellation at any size; huge |x| (where a^2 would overflow) is log(|x|) + ln2."""
    a = _fabs(x)
    huge = a > _c(x, 2.0**12, 2.0**28)
    ac = select(huge, x.f(1.0), a)
    a2 = ac * ac
    v = select(huge, a - 1.0, ac + a2 / (1.0 + _vsqrt(1.0 + a2)))
    r = _log1p(v) + select(huge, x.f(LN2), x.f(0.0))
    return select(isnan(x), x, _copysign(r, x))


def _arccosh(x):
    """acosh(x) = log1p(t + sqrt(t (t + 2))), t = x - 1 (exact below 2, all terms positive);
    huge: log(x) + ln2."""
    huge = x > _c(x, 2.0**12, 2.0**28)
    t = x - 1.0
    tc = select((t >= 0.0) & ~huge, t, x.f(0.0))
    v = select(huge, t, tc + _vsqrt(tc * (tc + 2.0)))
    r = _log1p(v) + select(huge, x.f(LN2), x.f(0.0))
    r = select(x < 1.0, x.f(NAN), r)
    return select(isnan(x), x, r)


def _arctanh(x):
    """atanh(|x|) = log1p(2a/(1-a))/2, as fdlibm's 2a + 2a*a/(1-a) below 1/2 (one division
    serves both forms)."""
    a = _fabs(x)
    small = a < 0.5
    q = (2.0 * a * select(small, a, a.f(1.0))) / (1.0 - a)  # 1 - a exact for a >= 1/2
    v = select(small, 2.0 * a + q, q)
    r = _copysign(0.5 * _log1p(v), x)
    r = select(a.eq(1.0), _copysign(x.f(INF), x), r)
    r = select(a > 1.0, x.f(NAN), r)
    return select(isnan(x), x, r)
