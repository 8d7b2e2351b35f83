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
  arctan arcsinh arccosh arctanh logistic softplus erf erfc erfinv cbrt lgamma digamma
  Binary: arctan2 pow logaddexp logaddexp2 hypot
  Thin wrappers over LLVM intrinsics: sqrt abs floor ceil trunc rint copysign,
  minimum maximum (NaN-propagating, like NumPy), fmin fmax (NaN-ignoring).
* Special values are those NumPy gives (IEEE/C99): nan in -> nan out; log(0) = -inf,
  log(<0) = nan, log1p(-1) = -inf, erfinv(+-1) = +-inf, exp overflow -> inf, underflow
  -> 0 with gradual denormals, sin(+-inf) = nan, signed zeros preserved by the odd
  functions, atan2 follows C99 for zeros and infinities, pow follows C99 ``pow``, lgamma
  is +inf at 0, the negative integers and +-inf (C99 and JAX; SciPy's gammaln(-inf) = -inf),
  digamma is -inf/+inf at +0/-0 and nan at the negative integers and -inf (SciPy's).
* Accuracy: max error in ulps of the correctly rounded result, measured (float32: 16M-point
  sweeps incl. uniform samples of all bit patterns, vs float64 NumPy/libm; float64: ~30k
  points vs mpmath at 113 bits; binary functions on random pairs + all pairs of specials).
  tests/test_vecmath.py asserts <= 4 ulp everywhere (``ULP_BOUNDS``)::

      function   f32   f64    function   f32   f64    function    f32   f64
      exp        1.0   1.0    sin        0.5   1.0    arcsinh     2.0   1.5
      exp2       1.1   1.1    cos        0.5   0.8    arccosh     2.8   2.6
      expm1      1.4   1.7    tan        2.5   1.9    arctanh     2.0   1.5
      log        0.8   0.8    arcsin     1.5   1.2    erf         1.7   1.6
      log2       1.0   0.8    arccos     0.9   1.0    erfc        0.5   2.5
      log10      0.9   0.8    arctan     0.8   0.7    erfinv      2.5   1.6
      log1p      1.4   1.0    arctan2    1.5   1.2    cbrt        0.8   0.7
      sinh       1.6   1.5    hypot      1.2   1.0    pow         0.5   1.0
      cosh       1.4   1.3    logistic   2.3   1.9    logaddexp   2.3   1.6
      tanh       2.3   2.0    softplus   2.0   1.6    logaddexp2  2.9   2.0
      lgamma     0.5   2.5    digamma    0.5   2.5   (x > 0; x < 0 below)
      sqrt, abs, floor, ceil, trunc, rint, copysign, minimum, maximum, fmin, fmax: exact.

  Documented exceptions (tested): logaddexp/logaddexp2 (``ULP_CANCELLED``) compute
  m + L, m = max(a, b), L = log1p(exp(-|a-b|)) as NumPy does; where the two terms have
  opposite signs and cancel (|result| < max(|m|, L), which needs m in (-2, 0)) the error
  is <= 3 ulps of max(|m|, L) rather than of the result.  For x < 0, lgamma is the
  reflection L - lgamma(-x), L = log(pi/|x sin(pi x)|) (L in double-word), and digamma is
  digamma(1 - x) - pi cot(pi x); both cancel next to each of their zeros on the negative
  axis, so there the error is <= 4 ulps of the largest of the result and the two terms
  (measured: lgamma 0.5 / 3.2, digamma 0.5 / 2.9), as tests/test_vecmath.py asserts.
* The IR carries only the ``contract`` fast-math flag, so results do not change when the
  calling loop is compiled with ``fastmath=True`` (Numba's fastmath pass leaves flagged
  instructions alone).  What fastmath does to the caller's own ops is the caller's business:
  with ``nnan``/``ninf`` there, LLVM may assume the *argument* is finite.
* float32 stays float32 except where float64 is the accurate choice: pow (|y log x| needs
  ~40 bits), erfc, lgamma, digamma and the trig reduction evaluate in float64.  They still
  take and return float32 (the loop then runs 8 lanes per op for those parts).
* sin, cos, tan, float32 pow, lgamma and digamma are *calls* rather than inline code: a
  scalar function whose vector versions (``vector-function-abi-variant``, see
  vecmath_variants) run a cheap path and branch, once per vector, to the full algorithm only
  when some lane needs it.  For trig the cheap path is Cody-Waite reduction for |x| < 2**28
  (float32: reduce mod pi in double, one polynomial, sign from the quotient's parity); the
  full one is Payne-Hanek, correct for every finite x (float32: the exact 64-bit-integer
  product with a window of 2/pi cut out of constants, no table; float64: a 2048 x 4 double
  table).  For float32 pow the cheap path is plain-double log and exp for normal x > 0,
  finite y and a normal result; other lanes take the float64 C99 algorithm.  lgamma and
  digamma skip the reflection for vectors of positive arguments.
* Performance: see bench/vecmath_bench.py.  Everything vectorises (tests assert it on a
  fused loop over every function); cost per element is a few ns at most (lgamma, digamma
  and erfinv: several).

Signatures (``T`` is float32 or float64; ints/bools -> float64)::

    exp exp2 expm1 log log2 log10 log1p sinh cosh tanh sin cos tan arcsin arccos arctan
    arcsinh arccosh arctanh logistic(=expit=sigmoid) softplus erf erfc erfinv cbrt sqrt
    lgamma(=gammaln) digamma(=psi) abs(=absolute) floor ceil trunc rint    : (T) -> T
    arctan2(y, x) pow(=power)(x, y) logaddexp logaddexp2 hypot copysign
    minimum maximum fmin fmax                                              : (T, T) -> T
"""
import math

from numba import types
from numba.core import typing as _typing
from numba.extending import intrinsic

from . import vecmath_ir as ir_
from . import vecmath_variants as _variants
from .vecmath_ir import (V, F32, F64, I32, I64, fma, select, isnan, isinf, signbit, poly,
                         two_sum, fast_two_sum, two_prod, fmt, pow2i, global_table, load_table,
                         estrin)
# aliased: the public names below (sqrt, floor, rint, ...) rebind these module globals
from .vecmath_ir import (sqrt as _vsqrt, fabs as _fabs, floor as _floor, ceil as _ceil,
                         trunc as _trunc, rint as _rint, copysign as _copysign)

INF = float("inf")
NAN = -float("nan")  # x86's default NaN (sign set), what NumPy returns for log(-1) etc.

# Max error in ulps (float32, float64) that tests/test_vecmath.py asserts; the measured
# maxima are in the module docstring.
_DEFAULT_BOUND = (4.0, 4.0)
ULP_BOUNDS = {}
# logaddexp(2): where m + L (m = max(a, b) < 0, L = log1p(exp(-|a-b|)) in (0, ln 2]) cancels,
# i.e. |result| < max(|m|, L) (only for m in (-2, 0)), the error is bounded in ulps of
# max(|m|, L), not of the result.  NumPy's own logaddexp uses the same formula.
ULP_CANCELLED = {"logaddexp": (3.0, 3.0), "logaddexp2": (3.0, 3.0)}

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


def _register(name, impl, nargs, fast=None, fast_types=(F32, F64)):
    """impl(*Vs) -> V, emitted inline.  With fast(*Vs) -> (V, slow mask): for the float
    types in fast_types, a call whose vector versions run fast and fall back to impl only
    for vectors with a slow lane (vecmath_variants)."""
    def typer(typingctx, *args):
        if len(args) != nargs:
            return None
        rt = _result_float(args)
        if rt is None:
            return None
        sig = _typing.signature(rt, *args)

        def codegen(context, builder, sig, llargs):
            vals = [context.cast(builder, a, t, sig.return_type) for a, t in zip(llargs, sig.args)]
            fty = F32 if sig.return_type == types.float32 else F64
            if fast is None or fty not in fast_types:
                return impl(*[V(builder, v) for v in vals]).v
            return _variants.call(builder, name, fty, impl, fast, vals)

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


# float32: log(1+f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2)-1, sqrt(2)-1] (vecmath_fit, relative
# error 6.3e-9): no division, unlike fdlibm's s = f/(2+f) form kept for float64.
LOG1P_P32 = [0.3333333134651184, -0.250008225440979, 0.20001220703125, -0.16623283922672272,
             0.14201852679252625, -0.13161037862300873, 0.12761303782463074,
             -0.07631786912679672]


def _log1pf_parts(f):
    """log(1+f) for |f| < 0.42 as the tail t with log(1+f) = f - t."""
    hfsq = 0.5 * f * f
    if f.is32:
        return fma(-(f * (f * f)), poly(f, LOG1P_P32), hfsq)
    # fdlibm: t = hfsq - s*(hfsq+R), s = f/(2+f)
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
    # c/u with 1/u = 2**-k / (1+f) ~ 2**-k * (1 - f + f^2): c is below half an ulp of the
    # result, so a 7% error in 1/u costs < 0.04 ulp and saves a division.
    ki = k.to_int()
    kc = select(ki > 100, ki.i(100), select(ki < -100, ki.i(-100), ki))
    inv_u = pow2i(-kc) * fma(f, f - 1.0, 1.0)
    c = select(kc.eq(ki), (x - (u - 1.0)) * inv_u, x.f(0.0))
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


def _slow_trig(x):
    """Lanes that need Payne-Hanek: huge and finite."""
    a = _fabs(x)
    return (a >= FAST_TRIG_LIMIT) & (a < INF)


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


# sin(r) = r + r^3 P(r^2) on |r| <= pi/2 + 1e-3, relative error 2**-35 (vecmath_fit)
SIN_HALFPI = [-0.16666666625863266, 0.0083333310961701, -0.00019840866541848744,
              2.752529678858088e-06, -2.388733162562903e-08]
INV_PI = 0.3183098861837907
ROUND_SHIFT = 6755399441055744.0  # 1.5 * 2**52: t + it rounds t to an integer in the low bits


def _sin_cos_f32_fast(x, kind):
    """float32 sin/cos for |x| < FAST_TRIG_LIMIT, all in double: reduce mod pi (not pi/2) so
    one odd polynomial serves every quadrant and the sign comes from n's parity.

    sin(x) = (-1)**n sin(x - n pi),             n = rint(x/pi)
    cos(x) = (-1)**n sin(x - (2n - 1) pi/2),    n = rint(x/pi + 1/2)
    m = 2n or 2n - 1 times pi/2 (in two doubles) is subtracted exactly, as in _reduce_fast.
    """
    xd = select(_fabs(x) < FAST_TRIG_LIMIT, x, x.f(0.0)).to(F64)
    t = xd * INV_PI if kind == "sin" else fma(xd, INV_PI, 0.5)
    shifted = t + ROUND_SHIFT
    n = shifted - ROUND_SHIFT
    m = n + n if kind == "sin" else (n + n) - 1.0
    r = fma(m, -PIO2_LO, fma(m, -PIO2_HI, xd))
    z = r * r
    sr = fma(r * z, poly(z, SIN_HALFPI), r)
    res = ((shifted.bits() << 63) ^ sr.bits()).as_float().to(F32)  # (-1)**n
    if kind == "sin":
        res = select(x.eq(0.0), x, res)  # keeps -0
    return select(_fabs(x) < INF, res, x - x)


def _with_fast_reduction(kind):
    full = _trig(kind, _reduce)
    fast64 = _trig(kind, _reduce_fast)

    def fast(x):
        if x.is32 and kind != "tan":
            return _sin_cos_f32_fast(x, kind), _slow_trig(x)
        return fast64(x), _slow_trig(x)

    full.__doc__ = "%s(x), correctly reduced for all finite x." % kind
    return full, fast


_sin, _sin_fast = _with_fast_reduction("sin")
_cos, _cos_fast = _with_fast_reduction("cos")
_tan, _tan_fast = _with_fast_reduction("tan")


# ==========================================================================================
# More exponentials and logarithms
# ==========================================================================================
LN2_LO_EXACT_32, LN2_LO_EXACT_64 = -1.9046542121259336e-09, 2.3190468138462996e-17
LOG2E_LO_32, LOG2E_LO_64 = 1.925963033500011e-08, 2.0355273740931033e-17
LOG10E_LO_32, LOG10E_LO_64 = -1.0103049952192578e-08, 1.098319650216765e-17
# log10(2) = hi + lo, hi with trailing zeros so k*hi is exact (fdlibm e_log10.c/e_log10f.c)
LOG10_2_HI_32, LOG10_2_LO_32 = 3.0102920532e-01, 7.9034151668e-07
LOG10_2_HI_64, LOG10_2_LO_64 = 3.01029995663611771306e-01, 3.69423907715893078616e-13
LOG10E = 0.4342944819032518


def _exp2(x):
    """2**x: integer part straight into the exponent, 2**r = e**(r ln2) with r*ln2 in
    double-word so the product's rounding does not show."""
    lo, hi = (-151.0, 129.0) if x.is32 else (-1080.0, 1030.0)
    xc = _clamp(x, lo, hi)
    z = _rint(xc)
    r = xc - z  # exact
    rh, rl = two_prod(r, LN2)
    rl = fma(r, _c(x, LN2_LO_EXACT_32, LN2_LO_EXACT_64), rl)
    p = fma(rh * rh, poly(rh, EXP_P32 if x.is32 else EXP_P64), rh + rl) + 1.0
    return select(isnan(x), x, _scale(p, z.to_int()))


def _log_lp(x):
    """x > 0 -> (k, hi, lo): log(x) = k*ln2 + hi + lo with hi + lo = log(1+f) to ~2**-(p+5)."""
    k, f = _log_split(x)
    t = _log1pf_parts(f)
    hi, lo = fast_two_sum(f, -t)  # |t| <= |f|/2
    return k, hi, lo


def _log2(x):
    """log2(x) = k + log1p(f)*log2(e): exact for powers of two."""
    k, hi, lo = _log_lp(x)
    y = fma(hi, LOG2E, fma(hi, _c(x, LOG2E_LO_32, LOG2E_LO_64), lo * LOG2E))
    return _log_special(x, k + y)


def _log10(x):
    """log10(x) = k*log10(2) + log1p(f)*log10(e), both products in extra precision."""
    k, hi, lo = _log_lp(x)
    lg2hi = _c(x, LOG10_2_HI_32, LOG10_2_HI_64)
    lg2lo = _c(x, LOG10_2_LO_32, LOG10_2_LO_64)
    tail = fma(hi, _c(x, LOG10E_LO_32, LOG10E_LO_64), fma(lo, LOG10E, k * lg2lo))
    y = fma(hi, LOG10E, tail)
    return _log_special(x, fma(k, lg2hi, y))


# ==========================================================================================
# Hyperbolic, logistic, softplus, logaddexp
# ==========================================================================================
SINH_P32 = [0.1666666716337204, 0.008333341218531132, 0.00019837527361232787,
            2.8102044780098367e-06]
SINH_P64 = [0.16666666666666666, 0.008333333333333333, 0.00019841269841269703,
            2.7557319224078367e-06, 2.5052108354218666e-08, 1.6059049726493794e-10,
            7.646534901243189e-13, 2.8469706461239095e-15]


def _half_exp(a):
    """e**a / 2 for a >= 0, overflowing exactly where sinh/cosh do (scale in the exponent)."""
    _, hi = _exp_limits(a)
    return _exp_core(_clamp(a, 0.0, hi + 1.0), k=-1)


def _sinh(x):
    """|x| < 1: odd polynomial; else e/2 - 1/(4 (e/2)), e/2 = exp(|x|)/2 without overflow."""
    a = _fabs(x)
    z = x * x
    small = fma(x * z, poly(z, SINH_P32 if x.is32 else SINH_P64), x)
    u = _half_exp(a)
    big = _copysign(u - 0.25 / u, x)
    return select(isnan(x), x, select(a < 1.0, small, big))


def _cosh(x):
    u = _half_exp(_fabs(x))
    return select(isnan(x), x, u + 0.25 / u)


def _logistic(x):
    """1/(1+e**-x) for x >= 0, e**x/(1+e**x) for x < 0: one exp, one division, no
    cancellation on either side."""
    lo, _ = _exp_limits(x)
    e = _exp_core(_clamp(-_fabs(x), lo, 0.0))
    num = select(x >= 0.0, x.f(1.0), e)
    return select(isnan(x), x, num / (e + 1.0))


def _softplus(x):
    """log(1 + e**x) = max(x, 0) + log1p(e**-|x|)."""
    lo, _ = _exp_limits(x)
    e = _exp_core(_clamp(-_fabs(x), lo, 0.0))
    res = select(x > 0.0, x, x.f(0.0)) + _log1p(e)
    return select(isnan(x), x, res)


def _logaddexp(a, b):
    """log(e**a + e**b) = max + log1p(e**-|a-b|) (NumPy's formula; see ULP_BOUNDS)."""
    m = select(a > b, a, b)
    lo, _ = _exp_limits(a)
    dh, dl = two_sum(select(a > b, b, a), -m)  # min - max = -|a-b|, exactly as a double-word
    ok = dh > lo
    dh = _clamp(dh, lo, 0.0)
    e = _exp_core(dh)
    e = select(ok, fma(e, dl, e), e)  # e**(dh+dl): the rounding of a-b would cost ulps
    res = m + _log1p(e)
    res = select(a.eq(b), a + LN2, res)  # also +-inf, +-inf
    return select(isnan(a) | isnan(b), a + b, res)


def _logaddexp2(a, b):
    """log2(2**a + 2**b) = max + log1p(2**-|a-b|)/ln2."""
    m = select(a > b, a, b)
    dh, dl = two_sum(select(a > b, b, a), -m)  # -|a-b| as a double-word
    lim = -200.0 if a.is32 else -1200.0
    ok = dh > lim
    e = _exp2(select(ok, dh, a.f(lim)))
    e = select(ok, fma(e, dl * LN2, e), e)
    l1 = _log1p(e)
    res = m + fma(l1, LOG2E, l1 * _c(a, LOG2E_LO_32, LOG2E_LO_64))
    res = select(a.eq(b), a + 1.0, res)
    return select(isnan(a) | isnan(b), a + b, res)


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


# ==========================================================================================
# cbrt, hypot
# ==========================================================================================
def _cbrt(x):
    """Bit-trick guess (exponent/3 via a float division of the bit pattern), then Newton
    t <- t - (t - a/t^2)/3 and a final fdlibm-style correction with exact t*t."""
    mb, bias, _ = fmt(x)
    a = _fabs(x)
    tiny = a < _c(x, 1.1754943508222875e-38, 2.2250738585072014e-308)
    sc = _c(x, 2.0**24, 2.0**54)
    a_s = select(tiny, a * sc, a)
    # bits/3 + (bias - bias/3 - 0.0330...)*2**mb
    B = int((bias - bias / 3.0 - 0.03306235651) * 2**mb)
    t = ((a_s.bits().to_float() * (1.0 / 3.0)).to_int() + B).as_float()
    for _ in range(3 if x.is32 else 4):
        t = t - (t - a_s / (t * t)) * (1.0 / 3.0)
    # final step: r = (a/t^2 - t)/(2t + a/t^2), t += t*r  (error ~ 0.5 + 0.5/3 ulp)
    ss = t * t
    r = a_s / ss
    corr = fma(-t, ss, a_s) / ss  # a/t^2 - t with the rounding of t*t accounted for
    t = t + t * (corr / (t + t + r))
    t = select(tiny, t * _c(x, 2.0**-8, 2.0**-18), t)
    res = _copysign(t, x)
    return select(isnan(x) | isinf(x) | x.eq(0.0), x, res)


def _hypot(x, y):
    """sqrt(x*x + y*y) scaled by a power of two so the squares neither overflow nor
    underflow; one fma.  C99: inf if either is inf (even with nan)."""
    mb, bias, emask = fmt(x)
    ax, ay = _fabs(x), _fabs(y)
    m = select(ax > ay, ax, ay)
    e = ((m.bits() >> mb) & emask) - bias
    e = select(e > bias - 1, e.i(bias - 1), select(e < 2 - bias, e.i(2 - bias), e))
    xs, ys = ax * pow2i(-e), ay * pow2i(-e)
    h = _vsqrt(fma(xs, xs, ys * ys)) * pow2i(e)
    res = select(isnan(x) | isnan(y), x + y, h)
    return select(isinf(x) | isinf(y), x.f(INF), res)


# ==========================================================================================
# erf, erfc, erfinv
# ==========================================================================================
# |x| < 1/2: erf(x) = x + x*P(x^2) (P[0] = 2/sqrt(pi) - 1: the 1 is exact)
ERF_P32 = [0.12837916709551257, -0.37612637877464294, 0.11283791065216064,
           -0.026866108179092407, 0.00522327097132802, -0.00085065996972844,
           0.00010820553870871663]
ERF_P64 = [0.12837916709551257, -0.37612638903183754, 0.11283791670955123,
           -0.026866170645130014, 0.005223977625402676, -0.000854832701608111,
           0.00012055332124017366, -1.4925586154570445e-05, 1.6459020462147536e-06,
           -1.6272876521522342e-07, 1.3212271411130885e-08]
# |x| >= 1/2: erfc(x) = exp(-x^2) * g(x); g(x) = G(x - c) on [1/2,3/2], [3/2,3], [3,9/2],
# and g(x) = H(1/x^2)/x beyond (vecmath_fit, relative error <= 1.2e-16 / 5.4e-8).
ERFC_C = [1.0, 2.25, 3.75]
ERFC_G32 = [
    [0.42758357524871826, -0.2732119560241699, 0.15437160432338715, -0.07922990620136261,
     0.03757215291261673, -0.016619525849819183, 0.006962875369936228,
     -0.002992906840518117, 0.00111334805842489],
    [0.23108725249767303, -0.08848650008440018, 0.03199262544512749, -0.01100204698741436,
     0.0036189951933920383, -0.0011438641231507063, 0.00034855393460020423,
     -0.00010217336966888979, 2.9245915357023478e-05, -9.106659490498714e-06,
     2.4248820409411564e-06],
    [0.14558972418308258, -0.03645625710487366, 0.008878755383193493,
     -0.0021073035895824432, 0.0004882253415416926, -0.00011044676648452878,
     2.4492777811246924e-05, -5.638163202092983e-06, 1.1960003121203044e-06],
    # fitted on 1/x^2 in [1/102.5, 1/20.25] only (float32 erfc is 0 beyond x = 10.1), which
    # absorbs the rounding of H(0) = 1/sqrt(pi)
    [0.5641895532608032, -0.28209200501441956, 0.4228355288505554, -1.0406352281570435,
     3.167630672454834, -7.324169635772705],
]
ERFC_G64 = [
    [0.427583576155807, -0.27321201478389856, 0.15437156137190824, -0.07922696894132707,
     0.03757229621531209, -0.016661869090398986, 0.006970142374081702,
     -0.002769064776139709, 0.0010502694178827052, -0.00038195452579959055,
     0.00013366276482453004, -4.5143915996252046e-05, 1.475459714110395e-05,
     -4.675651732632293e-06, 1.4340706719707211e-06, -4.3045685232087955e-07,
     1.37816780801666e-07, -3.8634396189819615e-08],
    [0.23108725873039188, -0.08848650280874916, 0.031992627410705875, -0.01100206075644028,
     0.00361899535437642, -0.0011437284836498638, 0.0003485354217101899,
     -0.00010272108117186264, 2.935325042986281e-05, -8.150283398402501e-06,
     2.2030062708633777e-06, -5.806316735886905e-07, 1.494800923910488e-07,
     -3.7608614036941865e-08, 9.1790160141115e-09, -2.2201977474777542e-09,
     6.054039535322814e-10, -1.38545542004836e-10],
    [0.14558972127503855, -0.03645625753272353, 0.008878755527325297, -0.00210728287016911,
     0.0004882223820956247, -0.00011057957492429224, 2.4516325375445297e-05,
     -5.326672789206985e-06, 1.1353256137201303e-06, -2.3760039513016965e-07,
     4.886477633086532e-08, -9.883138980986704e-09, 1.9673186681133353e-09,
     -3.855990018870419e-10, 7.420873181095426e-11, -1.4136075331896702e-11,
     2.9020398492626965e-12, -5.346235001558145e-13],
    [0.5641895835477563, -0.2820947917738733, 0.42314218765418643, -1.0578554655800756,
     3.702493134538369, -16.661052432293157, 91.61771435580546, -594.185857340118,
     4388.3199380581655, -34846.99050708691, 269035.75250138325, -1749519.1678208304,
     7933415.075216558, -17907881.37073186],
]


def _erf_small(x):
    z = x * x
    return fma(x, poly(z, ERF_P32 if x.is32 else ERF_P64), x)


def _erfc_pos(a):
    """erfc(a) for a >= 1/2 (inf/nan ok: clamped), the tail of erf, erfinv and float64 erfc.
    The interval's coefficients are picked by select, so one Horner chain serves all four
    pieces.  exp(-a^2) is taken with a^2 as an exact double-word and g is multiplied in
    before the 2**n scaling: one rounding each."""
    amax = _c(a, 10.1, 27.3)  # erfc underflows to 0 beyond
    a = select(a < amax, a, a.f(amax))  # nan -> amax, fixed by callers
    conds = [a < 1.5, a < 3.0, a < 4.5]
    tab = ERFC_G32 if a.is32 else ERFC_G64
    n = max(len(c) for c in tab)
    coef = [_pick(conds, [c[j] if j < len(c) else 0.0 for c in tab], a) for j in range(n)]
    far = ~conds[2]
    ia = 1.0 / a
    t = select(far, ia * ia, a - _pick(conds, ERFC_C + [0.0], a))
    acc = coef[-1]
    for cj in reversed(coef[:-1]):
        acc = fma(acc, t, cj)
    g = select(far, acc / a, acc)  # a division, not acc*ia: one rounding instead of two
    sh, sl = two_prod(a, a)
    r, n2 = _exp_reduce(_clamp(-sh, _exp_limits(a)[0], 0.0))
    r = r - sl
    p = fma(r * r, poly(r, EXP_P32 if a.is32 else EXP_P64), r) + 1.0
    return _scale(p * g, n2)


def _erf(x):
    """erf(x): odd polynomial below 1/2, 1 - erfc(|x|) above (erfc's error shrinks there)."""
    a = _fabs(x)
    res = select(a < 0.5, _erf_small(x), _copysign(1.0 - _erfc_pos(a), x))
    return select(isnan(x), x, res)


def _erfc(x):
    """erfc; float32 by _erfc_d in double (one polynomial, no pieces to pick)."""
    if x.is32:
        xd = x.to(F64)
        ec = _erfc_d(_fabs(xd))
        res = select(xd >= 0.0, ec, 2.0 - ec).to(F32)
        return select(isnan(x), x, res)
    a = _fabs(x)
    ec = _erfc_pos(a)
    res = select(a < 0.5, 1.0 - _erf_small(x), select(x > 0.0, ec, 2.0 - ec))
    return select(isnan(x), x, res)


# float32 erfc(a) = t exp(-a^2 + E(t)), t = 1/(1 + a/2) (the form of Numerical Recipes'
# erfcc, refitted): E on t in [0.16, 1] (a in [0, 10.5]), absolute error 2**-32.6 (vecmath_fit)
ERFC_E32 = [-1.265505976178086, 0.9997771489241947, 0.3785860940395843, 0.04945236686423572,
            0.12340343430788125, -1.0343802144945382, 2.577456946201369, -5.6154446857894635,
            8.38177089308061, -7.758044386671377, 4.334205639393331, -1.3546134784079331,
            0.18333621888433876]


def _erfc_d(a):
    """erfc(a) to ~2**-32 relative, for a float64 a >= 0 standing in for a float32 (inf ok,
    nan not): one division, one polynomial, one exp."""
    t = 1.0 / fma(a, 0.5, 1.0)
    arg = estrin(t, ERFC_E32) - a * a  # a*a exact: a has 24 bits
    r, n = _exp_reduce(_clamp(arg, _exp_limits(a)[0], 0.0))
    p = fma(r * r, estrin(r, EXP_P_FOR32), r) + 1.0
    return _scale(p * t, n)


# Giles, "Approximating the erfinv function" (single precision), w = -log((1-x)(1+x))
ERFINV_C = [1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
            -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08]  # w < 5
ERFINV_T = [2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
            -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257]  # w >= 5
# float64 only: w >= 16 (|x| > 1 - 2**-24), poly in sqrt(w) - 5 (vecmath_fit)
ERFINV_T64 = [4.849906401400408, 1.0103004653418781, -0.00013872194469471226,
              -0.00021502724804577184, 7.599111445772823e-05, -1.9654427746620634e-05,
              4.479714899509315e-06, -9.673275897724954e-07, 2.1233769457746472e-07,
              -3.5048809169606145e-08]  # relative error 6e-12 on w in [16, 38]
TWO_OVER_SQRTPI = 1.1283791670955126


def _erfinv(x):
    """Giles' approximation, then one Newton step (float32) or Halley step (float64) on
    erf(y) = |x|, with the residual from erfc near 1 so the tails keep relative accuracy."""
    a = _fabs(x)
    ac = select(a < 1.0, a, a.f(0.5))  # keep the guess finite; edges fixed below
    w = -_log((1.0 - ac) * (1.0 + ac))
    central = w < 5.0
    tail = select(central, w - 2.5, _vsqrt(w) - 3.0)
    coef = [select(central, w.f(c), w.f(t)) for c, t in zip(ERFINV_C, ERFINV_T)]
    if not x.is32 and ERFINV_T64 is not None:
        far = w >= 16.0
        tail = select(far, _vsqrt(w) - 5.0, tail)
        coef = [select(far, w.f(t), c) for c, t in zip(coef, ERFINV_T64)]
        coef += [select(far, w.f(t), w.f(0.0)) for t in ERFINV_T64[len(coef):]]
    acc = coef[-1]
    for cj in reversed(coef[:-1]):
        acc = fma(acc, tail, cj)
    y = acc * ac
    # residual erf(y) - a, accurately: from erfc where a is near 1
    near1 = ac >= 0.52
    r = select(near1, (1.0 - ac) - _erfc_pos(select(near1, y, y.f(0.5))),
               _erf_small(select(near1, y.f(0.0), y)) - ac)
    d = r / (TWO_OVER_SQRTPI * _exp_core(-(y * y)))
    y = y - (d if x.is32 else d / fma(y, d, 1.0))
    res = _copysign(y, x)
    res = select(a.eq(1.0), _copysign(x.f(INF), x), res)
    res = select(a > 1.0, x.f(NAN), res)
    return select(isnan(x) | a.eq(0.0), x, res)


# ==========================================================================================
# lgamma = log|Gamma|
# ==========================================================================================
# lgamma(y) = (y - 1) R1(y - 1) on [0.75, 1.25] and (y - 2) R2(y - 1.75) on [1.25, 2.25]:
# the zeros at 1 and 2 are factored out, so the relative error stays small next to them
# (relative error 2**-55.5 and 2**-53.3 after rounding the coefficients; vecmath_fit, weight 1/R)
LGAMMA_R1 = [-0.5772156649015329, 0.8224670334241132, -0.40068563438653176,
             0.2705808084277839, -0.20738555102848688, 0.16955717699749967,
             -0.1440498968070415, 0.12550966952672013, -0.11133426191615642,
             0.1000994561240768, -0.09095425167365695, 0.08335396750623812,
             -0.07692407416089866, 0.07142726739975898, -0.06685574817891025,
             0.06264478141906295, -0.056347004422660114, 0.05346809380421068,
             -0.07029961376084412, 0.06593827360660018]
LGAMMA_R2 = [0.3376044840819422, 0.3605281221403242, -0.0860912512263611,
             0.030229978825832518, -0.01247168001122646, 0.005606724830192493,
             -0.0026545437200291505, 0.0013001093445652876, -0.0006518932253814991,
             0.00033250363307973566, -0.00017180466355658043, 8.967476292691486e-05,
             -4.716797124032981e-05, 2.4964851482950927e-05, -1.3400997536443354e-05,
             7.247646732696473e-06, -3.5399541378170784e-06, 1.7590976098110016e-06,
             -1.6307380811284279e-06, 1.0116611731434644e-06]
# Stirling: lgamma(z) = (z - 1/2) log z - z + log(2 pi)/2 + sum B_2k / (2k (2k-1) z**(2k-1))
STIRLING = [0.08333333333333333, -0.002777777777777778, 0.0007936507936507937,
            -0.0005952380952380953, 0.0008417508417508417, -0.0019175269175269176,
            0.00641025641025641, -0.029550653594771242]  # next term < 2**-62 relative at 10
STIRLING_MIN = 10.0
HALF_LOG_2PI = 0.9189385332046728
LOG_PI, LOG_PI_LO = 1.1447298858494002, 1.0265951162707826e-17
# sin(pi r) / (pi r) = sum (-1)**k (pi r)**2k / (2k+1)!  for |r| <= 1/2 (Taylor, < 2**-60)
SINPI_OVER_PI_R = [1.0, -1.6449340668482264, 0.8117424252833536, -0.19075182412208422,
                   0.0261478478176548, -0.0023460810354558235, 0.000148428793031071,
                   -6.975873661656381e-06, 2.5312174041370274e-07, -7.304711822217775e-09,
                   1.7165384749821432e-10]


def _poly_pick(t, cond, a, b):
    """Polynomial a (where cond) or b (elsewhere) at t: one Horner chain over coefficients
    picked by select, the shorter list padded with zeros."""
    n = max(len(a), len(b))
    a, b = a + [0.0] * (n - len(a)), b + [0.0] * (n - len(b))
    acc = select(cond, t.f(a[-1]), t.f(b[-1]))
    for ca, cb in zip(reversed(a[:-1]), reversed(b[:-1])):
        acc = fma(acc, t, select(cond, t.f(ca), t.f(cb)))
    return acc


def _lgamma_pos(z):
    """lgamma(z) for float64 z >= 0 (0 -> inf, inf -> inf): below 10 _lgamma_small, from
    10 on Stirling with (z - 1/2) log z in double-word."""
    zs = select(z >= STIRLING_MIN, z, z.f(STIRLING_MIN))
    lh, ll = _log_dd(zs)
    h = zs - 0.5
    ph, pl = two_prod(h, lh)
    pl = fma(h, ll, pl)
    s, e = two_sum(ph, -zs)
    w = 1.0 / zs
    big = s + (e + pl + HALF_LOG_2PI + w * poly(w * w, STIRLING))
    big = select(ph < INF, big, ph)  # overflow (from z ~ 2.5e305): e would be inf - inf
    res = select(z < STIRLING_MIN, _lgamma_small(z), big)
    return select(z.eq(INF), z, res)


def _lgamma_small(z):
    """lgamma(z) for float64 0 <= z < 10 (other lanes: garbage, finite).

    z moves into [0.75, 2.25) by the recurrence Gamma(z+1) = z Gamma(z): one step up below
    0.75 (lgamma(z) = lgamma(z+1) - log z), m <= 8 steps down from above (+ log((z-1)...
    (z-m)), every factor exact); there one polynomial, its coefficients picked by select."""
    z = select(z < STIRLING_MIN, z, z.f(1.0))
    up = z < 0.75
    steps = select(z >= 2.25, _floor(z - 1.25), z.f(0.0))
    y = select(up, z + 1.0, z - steps)
    prod = z.f(1.0)
    for k in range(1, 9):
        prod = prod * select(steps >= float(k), z - float(k), z.f(1.0))
    near1 = y < 1.25
    acc = _poly_pick(y - select(near1, z.f(1.0), z.f(1.75)), near1, LGAMMA_R1, LGAMMA_R2)
    lg_y = (y - select(near1, z.f(1.0), z.f(2.0))) * acc
    logv = _log(select(up, z, prod))
    return lg_y + select(up, -logv, logv)


def _lgamma_fast(x):
    """lgamma for x > 0: no reflection (the slow lanes: x <= 0 and nan)."""
    xd = x.to(F64)
    positive = xd > 0.0
    res = _lgamma_pos(select(positive, xd, xd.f(1.0)))
    return (res.to(F32) if x.is32 else res), ~positive


def _lgamma64(x):
    """log|Gamma(x)|; x < 0 by reflection: log(pi / |x sin(pi x)|) - lgamma(-x), the log
    in double-word (|x sin(pi x)| = |x r| pi (1 + t), t = sin(pi r)/(pi r) - 1, r = x - rint(x))
    so that only the cancellation of the two terms themselves costs accuracy."""
    lp = _lgamma_pos(select(isnan(x), x.f(1.0), _fabs(x)))
    r = x - _rint(x)  # exact, |r| <= 1/2: |sin(pi x)| = |sin(pi r)|
    r = select(_fabs(x) < INF, r, x.f(0.0))
    z = r * r
    t = z * poly(z, SINPI_OVER_PI_R[1:])
    ah, al = two_prod(_fabs(x), _fabs(r))
    qh, ql = two_prod(ah, PI_HI_64)
    qh, ql = fast_two_sum(qh, fma(ah, PI_LO_64, fma(al, PI_HI_64, ql)))
    lh, ll = _log_dd(select(qh > 0.0, qh, x.f(1.0)))
    s1, e1 = two_sum(LOG_PI, -lh)
    s2, e2 = two_sum(s1, -lp)
    neg = s2 + (((e1 + e2) + LOG_PI_LO) - ((ll + ql / qh) + _log1p(t)))
    neg = select(qh > 0.0, neg, x.f(INF))  # sin(pi x) = 0: a pole
    # tiny |x|: x sin(pi x) underflows; lgamma(-t) = lgamma(t) + 2 gamma t + ... there
    res = select(x < 0.0, select(_fabs(x) < 2.0**-50, lp, neg), lp)
    res = select((x < 0.0) & r.eq(0.0), x.f(INF), res)  # poles, and -inf (inf - inf above)
    return select(isnan(x), x, res)


def _lgamma(x):
    """lgamma(x) = log|Gamma(x)| (scipy.special.gammaln); float32 through float64."""
    if x.is32:
        return _lgamma64(x.to(F64)).to(F32)
    return _lgamma64(x)


# ==========================================================================================
# digamma = Gamma'/Gamma
# ==========================================================================================
# psi(y) = (y - x0) Q(y - c) on [1, 1.5] (c = 1.25) and [1.5, 2] (c = 1.75), x0 psi's positive
# zero in double-word (relative error 2**-54.2 and 2**-56.1 after rounding; vecmath_fit)
DIGAMMA_ROOT, DIGAMMA_ROOT_LO = 1.4616321449683622, 9.549995429965697e-17
DIGAMMA_QA = [1.0747589096650145, -0.5791664818235408, 0.4002392309428256,
              -0.29981946865807163, 0.23226650153157133, -0.1827773491303305,
              0.1449583675094299, -0.11542832750158959, 0.09210989867071306,
              -0.07358552241835464, 0.05882366258498176, -0.04706414301982224,
              0.03764569947961942, -0.02968425778350177, 0.023715460123913887,
              -0.02288857938147881, 0.018431480086387505]
DIGAMMA_QB = [0.8581832171262995, -0.3262546278681057, 0.15712011335204326,
              -0.08228558635577926, 0.04479965445251758, -0.02489004848866944,
              0.013985786218386809, -0.007910468809184903, 0.004491811545856556,
              -0.0025566848210880123, 0.0014574479489664262, -0.0008315477291897128,
              0.0004733085509895493, -0.0002702175308004876, 0.00016811609083484935,
              -9.637352015709876e-05]
# psi(z) = log z - 1/(2z) - sum B_2k / (2k z**2k), from 10 on (next term < 2**-60 relative)
DIGAMMA_ASYMPTOTIC = [0.08333333333333333, -0.008333333333333333, 0.003968253968253968,
                      -0.004166666666666667, 0.007575757575757576, -0.021092796092796094,
                      0.08333333333333333, -0.4432598039215686]
# cos(pi r) = sum (-1)**k (pi r)**2k / (2k)!  for |r| <= 1/2 (Taylor, < 2**-56)
COSPI = [1.0, -4.934802200544679, 4.0587121264167685, -1.3352627688545895, 0.2353306303588932,
         -0.02580689139001406, 0.0019295743094039231, -0.0001046381049248457,
         4.303069587032947e-06, -1.3878952462213771e-07, 3.604730797462501e-09,
         -7.700707130601354e-11]


def _trigamma_rough(u):
    """psi'(u) for u >= 1 to 2% (1/u + 1/(2u^2) + 1/(6u^3)): enough for the first-order
    term psi'(u) * ul that carries the low word of an argument u + ul."""
    iu = 1.0 / u
    return iu * fma(iu, fma(iu, 1.0 / 6.0, 0.5), 1.0)


def _digamma_pos(z):
    """psi(z) for float64 z >= 0 (+0 -> -inf, inf -> inf).

    Below 10 the recurrence psi(z+1) = psi(z) + 1/z moves z into [1, 2): one step up below
    1, m <= 8 steps down from above, the m reciprocals 1/(z - j) (exact denominators)
    summed in double-word; there psi = (y - x0) Q(y), coefficients picked by select.  From
    10 on the asymptotic series."""
    zc = select(z < 10.0, z, z.f(1.0))
    up = zc < 1.0
    steps = select(zc >= 2.0, _floor(zc - 1.0), zc.f(0.0))
    yu, yl = two_sum(zc, zc.f(1.0))  # z + 1 exactly, for the step up
    y = select(up, yu, zc - steps)
    sh, sl = zc.f(0.0), zc.f(0.0)
    for j in range(8, 0, -1):  # the smallest terms first
        use = steps >= float(j)
        d = select(use, zc - float(j), zc.f(1.0))
        q = 1.0 / d
        e = fma(-q, d, 1.0) * q  # 1/d - q
        sh, t = two_sum(sh, select(use, q, zc.f(0.0)))
        sl = sl + (t + select(use, e, zc.f(0.0)))
    low = y < 1.5
    acc = _poly_pick(y - select(low, zc.f(1.25), zc.f(1.75)), low, DIGAMMA_QA, DIGAMMA_QB)
    psi_y = ((y - DIGAMMA_ROOT) - DIGAMMA_ROOT_LO) * acc
    psi_y = select(up, fma(_trigamma_rough(y), yl, psi_y), psi_y)
    inv = -1.0 / zc  # the step up: psi(z) = psi(z + 1) - 1/z
    h, l = two_sum(select(up, inv, sh), psi_y)
    small = h + (l + select(up, fma(inv, -zc, -1.0) * inv, sl))
    small = select(_fabs(inv) < INF, small, inv)  # 1/z overflows: -inf
    iz = 1.0 / z
    w = iz * iz
    big = (_log(z) - 0.5 * iz) - w * poly(w, DIGAMMA_ASYMPTOTIC)
    return select(z < 10.0, small, big)


def _digamma64(x):
    """psi(x); x < 0 by reflection: psi(1 - x) - pi cot(pi x), cot from sin(pi r) and
    cos(pi r), r = x - rint(x).  Poles as scipy.special.digamma: psi(+-0) = -+inf, nan at
    the negative integers and -inf."""
    neg_x = x < 0.0
    u, ul = two_sum(x.f(1.0), -x)  # 1 - x exactly; psi(u + ul) ~ psi(u) + psi'(u) ul
    pp = _digamma_pos(select(isnan(x), x.f(1.0), select(neg_x, u, x)))
    pp = select(neg_x & (u < INF), fma(_trigamma_rough(u), ul, pp), pp)
    res = select(neg_x, pp - _pi_cot_pi(x), pp)
    res = select(neg_x & _rint(x).eq(x), x.f(NAN), res)  # poles; -inf
    res = select(x.eq(0.0), select(signbit(x), x.f(INF), x.f(-INF)), res)
    return select(isnan(x), x, res)


def _pi_cot_pi(x):
    """pi cot(pi x) for finite non-integer x, to ~2 ulp: with r = x - rint(x) (exact),
    sin(pi r) = pi r (1 + ts) and cos(pi r) = 1 + tc, or pi c (1 + tc) with c = 1/2 - |r|
    (exact) where |r| > 1/4 so that the zero at r = 1/2 keeps its relative accuracy; the
    ratio (1 + tc)/(1 + ts) = 1 + (tc - ts)/(1 + ts) rounds only its small part."""
    r = x - _rint(x)
    r = select(_fabs(r) < INF, r, x.f(0.5))
    z = r * r
    ts = z * poly(z, SINPI_OVER_PI_R[1:])
    c = 0.5 - _fabs(r)
    far = c < 0.25
    zc = c * c
    tc = select(far, zc * poly(zc, SINPI_OVER_PI_R[1:]), z * poly(z, COSPI[1:]))
    lead = select(far, c * math.pi, x.f(1.0)) / r  # cos(pi r) > 0: the sign is r's
    return lead * (1.0 + (tc - ts) / (1.0 + ts))


def _digamma(x):
    """psi(x) = d/dx log|Gamma(x)| (scipy.special.digamma); float32 through float64."""
    if x.is32:
        return _digamma64(x.to(F64)).to(F32)
    return _digamma64(x)


def _digamma_fast(x):
    """digamma for x > 0: no reflection (the slow lanes: x <= 0 and nan)."""
    xd = x.to(F64)
    positive = xd > 0.0
    res = _digamma_pos(select(positive, xd, xd.f(1.0)))
    return (res.to(F32) if x.is32 else res), ~positive


# ==========================================================================================
# pow
# ==========================================================================================
TWO_THIRDS_HI, TWO_THIRDS_LO = 0.6666666666666666, 3.700743415417188e-17


def _dd_mul(ah, al, bh, bl):
    p, e = two_prod(ah, bh)
    return fast_two_sum(p, e + (ah * bl + al * bh))


def _log_dd(x):
    """log(x) for positive finite x as (hi, lo) with ~2**-64 relative error (float64).

    log(x) = k ln2 + 2 atanh(s), s = f/(2+f) kept as a double-word, the s**3 term in
    double-word too; only s**5 * R(s**2) (below 2**-12 of the result) in plain double."""
    k, f = _log_split(x)
    d = f + 2.0
    dl = f - (d - 2.0)  # exact: 2 + f = d + dl
    sh = f / d
    sl = fma(-sh, dl, fma(-sh, d, f)) / d
    z = sh * sh
    s2h, s2l = two_prod(sh, sh)
    s2l = s2l + 2.0 * sh * sl
    s3h, s3l = _dd_mul(s2h, s2l, sh, sl)
    t3h, t3l = _dd_mul(s3h, s3l, x.f(TWO_THIRDS_HI), x.f(TWO_THIRDS_LO))
    # 2 atanh(s) - 2s - 2 s^3/3 = s^5 * sum 2 z^j/(2j+5): Taylor, |z| <= 0.0295
    R = poly(z, [2.0 / (2 * j + 5) for j in range(11)])
    s5 = s3h * z
    h, l = two_sum(k * LOG_LN2_HI_64, 2.0 * sh)  # k*ln2_hi exact (trailing zeros)
    h, l2 = two_sum(h, t3h)
    l = l + l2 + (2.0 * sl + t3l + fma(s5, R, k * LOG_LN2_LO_64))
    return fast_two_sum(h, l)


def _exp_dd(th, tl):
    """e**(th + tl), float64, th clamped here."""
    lo, hi = _exp_limits(th)
    inside = (th > lo) & (th < hi)
    t = _clamp(th, lo, hi)
    r, n = _exp_reduce(t)
    r = r + select(inside, tl, th.f(0.0))
    p = fma(r * r, poly(r, EXP_P64), r) + 1.0
    return _scale(p, n)


def _is_int(y):
    return _trunc(y).eq(y)


def _pow64(x, y, for32=False):
    """C99/NumPy pow in float64: |x|**y = exp(y log|x|) with log and the product in
    double-word; sign and edge cases by select.  for32: the result will be rounded to
    float32, where plain float64 log/exp suffice (|y log x| <= 104, so the relative error
    104 * 2**-52 is far below float32's half ulp) and cost a third."""
    ax = _fabs(x)
    ok = (ax > 0.0) & (ax < INF)
    if for32:
        k, f = _log_split(select(ok, ax, x.f(1.0)))
        lo, hi = _exp_limits(x)
        r = _exp_core(_clamp(y * _log_core(k, f), lo, hi))
    else:
        lh, ll = _log_dd(select(ok, ax, x.f(1.0)))
        th, tl = two_prod(y, lh)
        tl = fma(y, ll, tl)
        r = _exp_dd(th, tl)
    # |x| = 0 or inf: the sign of y*log|x| decides between 0 and inf
    big = select(ax > 1.0, y > 0.0, y < 0.0)  # |x|**y -> inf?
    r = select(ok, r, select(big, x.f(INF), x.f(0.0)))
    # y = +-inf: |x| < 1 / > 1 decide; |x| = 1 -> 1
    yinf = _fabs(y).eq(INF)
    r = select(yinf, select(ax.eq(1.0), x.f(1.0), select(big, x.f(INF), x.f(0.0))), r)
    # negative x: integer y keeps (-1)**y, anything else finite is nan
    yfin = _fabs(y) < INF
    yint = _is_int(y) | ~yfin
    half = y * 0.5
    odd = yfin & _is_int(y) & ~_is_int(half)
    neg = signbit(x) & ~isnan(x)
    r = select(neg & odd, -r, r)
    r = select(neg & ~yint & (ax > 0.0) & (ax < INF), x.f(NAN), r)
    r = select(isnan(x) | isnan(y), x + y, r)
    return select(y.eq(0.0) | x.eq(1.0), x.f(1.0), r)


# e^r = 1 + r + r^2 P(r) on |r| <= ln2/2, relative error 2**-34: enough for a float32 result
EXP_P_FOR32 = [0.500000006885339, 0.16666665855100526, 0.041666290646761285,
               0.00833349891918739, 0.001394498226311108, 0.0001979009236757965]
FLT_MIN = 1.1754943508222875e-38


def _pow32_fast(x, y):
    """float32 x**y for normal x > 0, finite y and a normal, finite result (other lanes are
    slow): log and exp in plain double with float32-grade polynomials.

    log x = k ln2 + 2 atanh(s), s = f/(2+f) (Taylor to s**13, relative error 2**-39);
    |y log x| < 87 there, so the absolute error of y log x stays below 2**-32."""
    ix = x.bits()
    k = (ix - 0x3F3504F3) >> 23  # x = 2**k * m, m in [sqrt(1/2), sqrt(2))
    m = (ix - (k << 23)).as_float()
    f = m.to(F64) - 1.0  # exact
    sd = f / (f + 2.0)
    z = sd * sd
    series = poly(z, [2.0 / (2 * j + 3) for j in range(6)])
    logx = fma(k.to_float().to(F64), LN2, fma(sd * z, series, sd + sd))
    t = y.to(F64) * logx
    r, n = _exp_reduce(t)
    p = fma(r * r, poly(r, EXP_P_FOR32), r) + 1.0
    res = (p * pow2i(n)).to(F32)
    ordinary = (x >= FLT_MIN) & (x < INF) & (_fabs(y) < INF) & (_fabs(t) < 87.0)
    return res, ~ordinary


def _pow(x, y):
    """x**y; float32 goes through the float64 algorithm (|y log x| needs ~40 bits)."""
    if x.is32:
        return _pow64(x.to(F64), y.to(F64), for32=True).to(F32)
    return _pow64(x, y)


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
    res = select(x < y, x, y)  # equal (incl. -0 vs +0): y, as NumPy does
    return select(isnan(x), x, select(isnan(y), y, res))


def _maximum(x, y):
    """NumPy maximum: nan if either is nan."""
    res = select(x > y, x, y)
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
sin = _register("sin", _sin, 1, fast=_sin_fast)
cos = _register("cos", _cos, 1, fast=_cos_fast)
tan = _register("tan", _tan, 1, fast=_tan_fast)
exp2 = _register("exp2", _exp2, 1)
log2 = _register("log2", _log2, 1)
log10 = _register("log10", _log10, 1)
sinh = _register("sinh", _sinh, 1)
cosh = _register("cosh", _cosh, 1)
logistic = _register("logistic", _logistic, 1)
expit = sigmoid = logistic
softplus = _register("softplus", _softplus, 1)
logaddexp = _register("logaddexp", _logaddexp, 2)
logaddexp2 = _register("logaddexp2", _logaddexp2, 2)
arctan = _register("arctan", _arctan, 1)
arctan2 = _register("arctan2", _arctan2, 2)
arcsin = _register("arcsin", _arcsin, 1)
arccos = _register("arccos", _arccos, 1)
arcsinh = _register("arcsinh", _arcsinh, 1)
arccosh = _register("arccosh", _arccosh, 1)
arctanh = _register("arctanh", _arctanh, 1)
cbrt = _register("cbrt", _cbrt, 1)
hypot = _register("hypot", _hypot, 2)
pow = _register("pow", _pow, 2, fast=_pow32_fast, fast_types=(F32,))
erf = _register("erf", _erf, 1)
erfc = _register("erfc", _erfc, 1)
erfinv = _register("erfinv", _erfinv, 1)
lgamma = gammaln = _register("lgamma", _lgamma, 1, fast=_lgamma_fast)
digamma = psi = _register("digamma", _digamma, 1, fast=_digamma_fast)
power = pow
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
