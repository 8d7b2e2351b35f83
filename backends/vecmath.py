"""Vectorisable scalar math for Numba loop bodies (float32 and float64).

The llvmlite wheels carry no SVML, so inside ``@njit`` ``np.exp`` & co. become scalar libm
calls and a fused ``prange`` loop stays scalar.  Every function here is a
``numba.extending.intrinsic`` that emits branch-free LLVM IR straight into the caller
(range reduction + polynomial, ``select`` for special cases, ``fma``, bit casts), so the
loop vectoriser widens it to ``<16 x float>`` / ``<8 x double>`` on AVX-512.

Contract
--------
* One name per op, callable only from ``@njit`` code: ``vecmath.exp(x)``.  Works for
  float32 and float64 and returns the argument's type: float32 stays float32, constants
  included.  Integer/bool arguments are treated as float64 (NumPy's rule); in the binary
  functions an integer *literal* (``pow(x, 2)``) is weak and takes the other argument's
  type, and float32 with float64 gives float64.
* Unary: exp exp2 expm1 log log2 log10 log1p sinh cosh tanh sin cos tan arcsin arccos
  arctan arcsinh arccosh arctanh logistic softplus erf erfc erfinv cbrt
  Binary: arctan2 pow logaddexp logaddexp2 hypot
  Thin wrappers over LLVM intrinsics: sqrt abs floor ceil trunc rint copysign,
  minimum maximum (NaN-propagating, like NumPy), fmin fmax (NaN-ignoring).
* Special values are those NumPy gives (IEEE/C99): nan in -> nan out; log(0) = -inf,
  log(<0) = nan, log1p(-1) = -inf, erfinv(+-1) = +-inf, exp overflow -> inf, underflow
  -> 0 with gradual denormals, sin(+-inf) = nan, signed zeros preserved by the odd
  functions, atan2 follows C99 for zeros and infinities, pow follows C99 ``pow``.
* Accuracy: see ``ULP_BOUNDS`` below (max error in ulps of the correctly rounded result,
  measured by tests/test_vecmath.py against float64 NumPy for float32 and mpmath for
  float64).  Bounds hold over the whole domain, including denormals.
* The IR carries only the ``contract`` fast-math flag, so results do not change when the
  calling loop is compiled with ``fastmath=True`` (Numba's fastmath pass leaves flagged
  instructions alone).  What fastmath does to the caller's own ops is the caller's business:
  with ``nnan``/``ninf`` there, LLVM may assume the *argument* is finite.
* A few functions compute internally in float64 for float32 arguments where that is the
  standard, accurate choice: the Payne-Hanek reduction of sin/cos/tan (the only correct
  reduction for |x| up to 3.4e38) and pow (|y*log x| needs ~40 bits).  They still take and
  return float32.
"""
import math

from numba import types
from numba.core import typing as _typing
from numba.extending import intrinsic

from . import vecmath_ir as ir_
from .vecmath_ir import (V, F32, F64, I32, I64, fma, select, isnan, isinf, signbit, poly,
                         two_sum, fast_two_sum, two_prod, fmt, pow2i, global_table, load_table)
# aliased: the public names below (sqrt, floor, rint, ...) rebind these module globals
from .vecmath_ir import (sqrt as _vsqrt, fabs as _fabs, floor as _floor, ceil as _ceil,
                         trunc as _trunc, rint as _rint, copysign as _copysign)

INF = float("inf")
NAN = -float("nan")  # x86's default NaN (sign set), what NumPy returns for log(-1) etc.

# Max error in ulps (float32, float64) that tests/test_vecmath.py asserts; the measured
# maxima are listed in the table in README-style comments next to each entry.
_DEFAULT_BOUND = (4.0, 4.0)
ULP_BOUNDS = {}

# ==========================================================================================
# Registration: turn an emitter ``impl(V, ...) -> V`` into a typed intrinsic.
# ==========================================================================================


def _result_float(argtys):
    """NumPy-style result dtype for float math on these Numba types (None = unsupported)."""
    out = None
    for t in argtys:
        if isinstance(t, types.IntegerLiteral):
            continue  # weak Python int: takes the other operand's type
        if isinstance(t, types.Float) and t in (types.float32, types.float64):
            ft = t
        elif isinstance(t, (types.Integer, types.Boolean)):
            ft = types.float64
        else:
            return None
        out = ft if out is None or ft == types.float64 else out
    return out or types.float64


def _register(name, impl, nargs):
    def typer(typingctx, *args):
        if len(args) != nargs:
            return None
        rt = _result_float(args)
        if rt is None:
            return None
        sig = _typing.signature(rt, *args)

        def codegen(context, builder, sig, llargs):
            vals = [V(builder, context.cast(builder, a, t, sig.return_type))
                    for a, t in zip(llargs, sig.args)]
            return impl(*vals).v

        return sig, codegen

    if nargs == 1:
        def fn(typingctx, x):
            return typer(typingctx, x)
    else:
        def fn(typingctx, x, y):
            return typer(typingctx, x, y)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = impl.__doc__
    ULP_BOUNDS.setdefault(name, _DEFAULT_BOUND)
    return intrinsic(prefer_literal=True)(fn)


# ==========================================================================================
# Constants
# ==========================================================================================
def _c(x, c32, c64):
    """Pick the constant for x's precision."""
    return x.f(c32 if x.is32 else c64)


LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
# ln2 split for Cody-Waite: n*LN2_HI exact in an fma for every n exp can see
LN2_HI_32, LN2_LO_32 = 0.693145751953125, 1.4286067653302226e-06
LN2_HI_64, LN2_LO_64 = 0.6931471805599453, 2.3190468138462996e-17

# e^r = 1 + r + r^2 P(r) on |r| <= ln2/2 (vecmath_fit: rel. err 4.7e-9 / 1.6e-18)
EXP_P32 = [0.4999999403953552, 0.166665181517601, 0.04166840761899948,
           0.00836892705410719, 0.0013814191333949566]
EXP_P64 = [0.5, 0.16666666666666685, 0.041666666666666075, 0.008333333333316666,
           0.0013888888889120766, 0.00019841269897316193, 2.4801586920282366e-05,
           2.7557233912832482e-06, 2.755758480201702e-07, 2.51123731703179e-08,
           2.082634749399996e-09]
# expm1(r) = r + r^2 P(r) on |r| <= ln2/2, relative error (2.2e-9 / 6.5e-19)
EXPM1_P32 = [0.5, 0.1666666567325592, 0.04166635870933533, 0.008333387784659863,
             0.0013940955977886915, 0.0001984694245038554]
EXPM1_P64 = [0.5, 0.16666666666666677, 0.041666666666666505, 0.008333333333321421,
             0.001388888888896408, 0.0001984126988674068, 2.4801587170287935e-05,
             2.7557243512083367e-06, 2.755740361480088e-07, 2.5109305440778305e-08,
             2.087531863396348e-09]
# log: fdlibm e_log.c / e_logf.c  (R(z) = z*P(z), z = s^2, s = f/(2+f))
LOG_P32 = [0.6666666269302368, 0.40000972151756287, 0.2849878668785095, 0.24279078841209412]
LOG_P64 = [6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
           2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
           1.479819860511658591e-01]
LOG_LN2_HI_32, LOG_LN2_LO_32 = 6.9313812256e-01, 9.0580006145e-06
LOG_LN2_HI_64, LOG_LN2_LO_64 = 6.93147180369123816490e-01, 1.90821492927058770002e-10
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
# exp family
# ==========================================================================================
def _clamp(x, lo, hi):
    """Clamp that also maps nan to lo: keeps later float->int conversions in range."""
    x = select(x >= lo, x, x.f(lo))  # ordered compare: nan -> lo
    return select(x > hi, x.f(hi), x)


def _scale(p, n):
    """p * 2**n for n up to twice the exponent range, with a single final rounding.

    Built from two exponent-field powers in integer arithmetic: a single 2**n would
    overflow its exponent field near the ends of the range, and a float multiply by a
    huge/tiny constant is what fastmath would love to regroup.
    """
    n1 = n >> 1
    return p * pow2i(n1) * pow2i(n - n1)


def _exp_reduce(x):
    """x -> (r, n) with x = n*ln2 + r, |r| <= ln2/2 (+tiny).  x must be clamped."""
    z = _rint(x * LOG2E)
    hi, lo = (LN2_HI_32, LN2_LO_32) if x.is32 else (LN2_HI_64, LN2_LO_64)
    r = fma(z, -hi, x)  # exact: hi has trailing zeros
    r = fma(z, -lo, r)
    return r, z.to_int()


def _exp_limits(x):
    return (-104.0, 89.0) if x.is32 else (-746.0, 710.0)


def _exp_core(x, k=0):
    """e**x * 2**k for clamped x (k a small Python int)."""
    r, n = _exp_reduce(x)
    p = fma(r * r, poly(r, EXP_P32 if x.is32 else EXP_P64), r) + 1.0
    return _scale(p, n + k if k else n)


def _exp(x):
    """e**x."""
    lo, hi = _exp_limits(x)
    return select(isnan(x), x, _exp_core(_clamp(x, lo, hi)))


def _expm1_core(x):
    """expm1 for x already clamped to the exp range; relative accuracy near 0."""
    r, n = _exp_reduce(x)
    em = fma(r * r, poly(r, EXPM1_P32 if x.is32 else EXPM1_P64), r)  # expm1(r)
    # small n: 2^n*em + (2^n - 1), where 2^n - 1 is exact
    nmax = 20 if x.is32 else 50
    ns = select(n > nmax, n.i(nmax), n)
    t = pow2i(ns)
    small = fma(em, t, t - 1.0)
    big = _scale(em + 1.0, n) - 1.0
    return select(n > nmax, big, small)


def _expm1(x):
    """e**x - 1."""
    lo = -20.0 if x.is32 else -45.0  # below: -1 exactly after rounding
    _, hi = _exp_limits(x)
    res = _expm1_core(_clamp(x, lo, hi))
    return select(isnan(x) | x.eq(0.0), x, res)


def _tanh(x):
    """tanh(x) = e/(e+2) with e = expm1(2|x|): one expm1, one division, no cancellation."""
    a = _fabs(x)
    a = select(a > _c(x, 20.0, 40.0), x.f(_c(x, 20.0, 40.0)), a)
    e = _expm1(a + a)
    return _copysign(e / (e + 2.0), x)


# ==========================================================================================
# log family
# ==========================================================================================
def _log_split(x):
    """Positive finite x (denormals too) -> (k as float, f) with x = 2**k * (1 + f),
    1 + f in [sqrt(1/2), sqrt(2)).  Integer steps stay in x's width."""
    mb, _, _ = fmt(x)
    tiny = x < _c(x, 1.1754943508222875e-38, 2.2250738585072014e-308)
    xs = select(tiny, x * _c(x, 2.0**25, 2.0**54), x)
    kadj = select(tiny, x.i(-25 if x.is32 else -54), x.i(0))
    ix = xs.bits()
    off = 0x3F3504F3 if x.is32 else 0x3FE6A09E667F3BCD  # bits of sqrt(1/2)
    k = (ix - off) >> mb
    f = (ix - (k << mb)).as_float() - 1.0
    return (k + kadj).to_float(), f


def _log1pf_parts(f):
    """log(1+f) for |f| < 0.42 as (f, tail): log = f - (hfsq - s*(hfsq+R)) (fdlibm)."""
    hfsq = 0.5 * f * f
    s = f / (f + 2.0)
    z = s * s
    R = z * poly(z, LOG_P32 if f.is32 else LOG_P64)
    return hfsq - s * (hfsq + R)  # log(1+f) = f - this


def _log_core(k, f):
    hi, lo = (LOG_LN2_HI_32, LOG_LN2_LO_32) if f.is32 else (LOG_LN2_HI_64, LOG_LN2_LO_64)
    t = _log1pf_parts(f)
    # fdlibm: k*ln2_hi - ((hfsq - (s*(hfsq+R) + k*ln2_lo)) - f)
    return k * hi - ((t - k * lo) - f)


def _log_special(x, res):
    """NumPy/C99 edge values shared by the log family."""
    res = select(x.eq(INF), x, res)
    res = select(x.eq(0.0), x.f(-INF), res)
    res = select(x < 0.0, x.f(NAN), res)
    return select(isnan(x), x, res)


def _log(x):
    """Natural logarithm."""
    k, f = _log_split(x)
    return _log_special(x, _log_core(k, f))


def _log1p(x):
    """log(1+x) = log(u) + (x - (u-1))/u with u = fl(1+x): the quotient restores what the
    rounding of 1+x lost (u-1 and x-(u-1) are exact)."""
    u = x + 1.0
    k, f = _log_split(select(u > 0.0, u, x.f(1.0)))
    c = (x - (u - 1.0)) / u
    res = _log_core(k, f) + c
    res = select(x.eq(INF), x, res)
    res = select(x.eq(-1.0), x.f(-INF), res)
    res = select(x < -1.0, x.f(NAN), res)
    return select(isnan(x) | x.eq(0.0), x, res)


# ==========================================================================================
# Trigonometric: Payne-Hanek reduction by table, in float64 for both precisions
# ==========================================================================================
def _two_over_pi_bits(nbits):
    """floor(2/pi * 2**nbits) from Machin's formula in integer arithmetic (no mpmath at run
    time, no long hex literal to mistype)."""
    guard = 64
    one = 1 << (nbits + guard)

    def arctan_inv(m):  # arctan(1/m) * 2**(nbits+guard)
        total, term, k, m2 = 0, one // m, 1, m * m
        while term:
            total += term // k if (k // 2) % 2 == 0 else -(term // k)
            term //= m2
            k += 2
        return total

    pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))  # pi * 2**(nbits+guard)
    return (2 << (2 * (nbits + guard))) // pi >> guard


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
    hi = ir_.fshl(w0, w1, sh)  # window bits 0..63
    lo = ir_.fshl(w1, w2, sh).lshr(32)  # window bits 64..95
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
    """-> (q, rh, rl) in x's precision (q in x's integer width)."""
    if x.is32:
        return _rem_pio2_f32(x)
    return _rem_pio2(x)


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


def _sin(x):
    """sin(x), correctly reduced for all finite x."""
    q, h, l = _reduce(_trig_input(x))
    s, c = _sin_kernel(h, l), _cos_kernel(h, l)
    res = select((q & 1).eq(0), s, c)
    res = select((q & 2).eq(0), res, -res)
    res = select(_fabs(x) < _c(x, 2.0**-12, 0.0), x, res)  # keeps -0; tiny f32 below window
    res = select(x.eq(0.0), x, res)
    return select(_fabs(x) < INF, res, x - x)


def _cos(x):
    """cos(x), correctly reduced for all finite x."""
    q, h, l = _reduce(_trig_input(x))
    s, c = _sin_kernel(h, l), _cos_kernel(h, l)
    res = select((q & 1).eq(0), c, -s)
    res = select((q & 2).eq(0), res, -res)
    res = select(_fabs(x) < _c(x, 2.0**-12, 0.0), x.f(1.0), res)
    return select(_fabs(x) < INF, res, x - x)


def _tan(x):
    """tan = sin/cos of the reduced argument (or -cos/sin in odd quadrants)."""
    q, h, l = _reduce(_trig_input(x))
    s, c = _sin_kernel(h, l), _cos_kernel(h, l)
    odd = (q & 1).ne(0)
    res = select(odd, -c, s) / select(odd, s, c)
    res = select(_fabs(x) < _c(x, 2.0**-12, 0.0), x, res)
    res = select(x.eq(0.0), x, res)
    return select(_fabs(x) < INF, res, x - x)


# ==========================================================================================
# Thin wrappers
# ==========================================================================================
def _sqrt(x):
    """sqrt (llvm.sqrt; IEEE: sqrt(-0) = -0, sqrt(<0) = nan)."""
    return _vsqrt(x)


def _abs(x):
    """|x| (llvm.fabs)."""
    return _fabs(x)


def _minimum(x, y):
    """NumPy minimum: nan if either is nan."""
    res = select(x < y, x, y)
    res = select(x.eq(y), select(signbit(x), x, y), res)  # minimum(-0, +0) = -0
    return select(isnan(x), x, select(isnan(y), y, res))


def _maximum(x, y):
    """NumPy maximum: nan if either is nan."""
    res = select(x > y, x, y)
    res = select(x.eq(y), select(signbit(x), y, x), res)
    return select(isnan(x), x, select(isnan(y), y, res))


def _fmin(x, y):
    """NumPy fmin: the non-nan one."""
    return select(isnan(y), x, select(isnan(x), y, _minimum(x, y)))


def _fmax(x, y):
    """NumPy fmax: the non-nan one."""
    return select(isnan(y), x, select(isnan(x), y, _maximum(x, y)))


# ==========================================================================================
# Public names
# ==========================================================================================
exp = _register("exp", _exp, 1)
expm1 = _register("expm1", _expm1, 1)
tanh = _register("tanh", _tanh, 1)
log = _register("log", _log, 1)
log1p = _register("log1p", _log1p, 1)
sin = _register("sin", _sin, 1)
cos = _register("cos", _cos, 1)
tan = _register("tan", _tan, 1)
sqrt = _register("sqrt", _sqrt, 1)
abs = _register("abs", _abs, 1)
absolute = abs
floor = _register("floor", _floor, 1)
ceil = _register("ceil", _ceil, 1)
trunc = _register("trunc", _trunc, 1)
rint = _register("rint", _rint, 1)
copysign = _register("copysign", _copysign, 2)
minimum = _register("minimum", _minimum, 2)
maximum = _register("maximum", _maximum, 2)
fmin = _register("fmin", _fmin, 2)
fmax = _register("fmax", _fmax, 2)
