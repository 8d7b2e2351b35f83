"""vecmath's exponentials and logarithms: exp, exp2, expm1, log, log2, log10, log1p, the
hyperbolic functions built on them (sinh, cosh, tanh, logistic, softplus, logaddexp) and pow,
with the double-word log and exp that pow and lgamma share.  Emitters ``(V, ...) -> V``;
vecmath registers them.  The contract and the measured accuracy are in vecmath's docstring."""
from .ir import (F32, F64, fma, select, isnan, signbit, poly, two_sum, fast_two_sum,
                         two_prod, fmt, pow2i, fabs as _fabs, trunc as _trunc, rint as _rint,
                         copysign as _copysign)

INF = float("inf")
NAN = -float("nan")  # x86's default NaN (sign set), what NumPy returns for log(-1) etc.


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
    """tanh(x) = e/(e+2) with e = expm1(2|x|): one expm1, one division, no cancellation.

    |x| is clamped where tanh rounds to 1 (9.01 in float32, 19.06 in float64), so 2**n
    stays a normal power and expm1 needs only its small-n form: there t - 1 rounds once
    n passes the mantissa width, an error of 2**-25 (2**-54) relative to e, far below
    what e/(e+2) can show."""
    a = _fabs(x)
    lim = _c(x, 9.1, 19.1)
    a = select(a > lim, x.f(lim), a)  # a nan stays nan
    r, n = _exp_reduce(a + a)
    em = fma(r * r, poly(r, EXPM1_P32 if x.is32 else EXPM1_P64), r)  # expm1(r)
    t = pow2i(n)
    e = fma(em, t, t - 1.0)
    return _copysign(e / (e + 2.0), x)


# ==========================================================================================
# log family
# ==========================================================================================
def _log_split(x, subnormal=True):
    """Positive finite x (denormals too) -> (k as float, f) with x = 2**k * (1 + f),
    1 + f in [sqrt(1/2), sqrt(2)).  Integer steps stay in x's width.  subnormal=False:
    x is known to be normal, so the rescaling of subnormals is left out."""
    mb, _, _ = fmt(x)
    kadj = None
    if subnormal:
        tiny = x < _c(x, 1.1754943508222875e-38, 2.2250738585072014e-308)
        x = select(tiny, x * _c(x, 2.0**25, 2.0**54), x)
        kadj = select(tiny, x.i(-25 if x.is32 else -54), x.i(0))
    ix = x.bits()
    off = 0x3F3504F3 if x.is32 else 0x3FE6A09E667F3BCD  # bits of sqrt(1/2)
    k = (ix - off) >> mb
    f = (ix - (k << mb)).as_float() - 1.0
    return (k if kadj is None else k + kadj).to_float(), f


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
    """log(1+x) = k ln2 + log(1+f), 1+f = 2**-k (1+x), k read from u = fl(1+x).  While 2**-k
    is exact next to 1 (k <= the mantissa's width), f = 2**-k x + (2**-k - 1) is one fma:
    exact before its one rounding, so what the rounding of 1+x lost never enters (a
    correction (x - (u-1))/u added afterwards took twice the operations).  Past that width
    u's rounding is below a tenth of an ulp of the result and f comes from u's bits."""
    u = x + 1.0
    # u is 0 or at least 2**-24 (2**-53), never subnormal
    k, f_bits = _log_split(select(u > 0.0, u, x.f(1.0)), subnormal=False)
    ki = k.to_int()
    near = ki <= (24 if x.is32 else 53)
    s = pow2i(-select(near, ki, ki.i(0)))
    # (a nan: u > 0 fails, k = 0 and f = x, so the nan runs through)
    res = _log_core(k, select(near, fma(s, x, s - 1.0), f_bits))
    res = select(x.eq(INF), x, res)
    res = select(x.eq(-1.0), x.f(-INF), res)
    res = select(x < -1.0, x.f(NAN), res)
    return select(x.eq(0.0), x, res)  # (keeps -0)


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


# log(1+f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2)-1, sqrt(2)-1] in double, relative error
# 2**-32.8 (vecmath_fit, weight f^3/log1p(f)): for float32 results computed in double
LOG1P_P_FOR32 = [0.3333333236531168, -0.24999966942369062, 0.20000090599884074,
                 -0.16669407293887142, 0.142851160018549, -0.12424366805316091,
                 0.11036204928154085, -0.1081978044036995, 0.10632156646309637,
                 -0.05976630003346061]


def _log_for32(x):
    """log of a positive finite float64 x to 2**-32 relative, without fdlibm's division:
    for float32 results computed in double."""
    k, f = _log_split(x)
    return fma(k, LN2, fma(f * (f * f), poly(f, LOG1P_P_FOR32), f - 0.5 * (f * f)))


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
