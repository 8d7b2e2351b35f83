"""vecmath's special functions: cbrt, hypot, erf, erfc, erfinv, lgamma and digamma.
Emitters ``(V, ...) -> V``; vecmath registers them."""
import math

from .ir import (F32, F64, fma, select, isnan, isinf, signbit, poly, estrin, two_sum,
                         fast_two_sum, two_prod, fmt, pow2i, sqrt as _vsqrt, fabs as _fabs,
                         floor as _floor, rint as _rint, copysign as _copysign)
from .explog import (INF, NAN, EXP_P32, EXP_P64, EXP_P_FOR32, _c, _clamp, _exp_core,
                             _exp_limits, _exp_reduce, _log, _log1p, _log_dd, _log_for32, _scale)
from .trig import PI_HI_64, PI_LO_64, _pick

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
    # below e**-105 the float32 result rounds to 0; so n >= -152 and one power of two will do
    r, n = _exp_reduce(_clamp(arg, -105.0, 0.0))
    p = fma(r * r, estrin(r, EXP_P_FOR32), r) + 1.0
    return (p * t) * pow2i(n)


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
# the same for a float32 result (relative error 2**-34.6 and 2**-35.1; vecmath_fit)
LGAMMA_R1_F32 = [-0.5772156649044132, 0.8224670344184247, -0.4006856330146627,
                 0.27058049123862504, -0.20738554992166827, 0.16958539116407007,
                 -0.14406292758278919, 0.1244924170785271, -0.11063217891757823,
                 0.11588530365585034, -0.10401819398377789]
LGAMMA_R2_F32 = [0.3376044840878991, 0.36052812198302986, -0.08609125303166924,
                 0.030229992186285293, -0.01247159319212771, 0.00560639979733197,
                 -0.0026560476389806465, 0.001303465733219526, -0.0006403011248708166,
                 0.0003160955219447802, -0.00021189322672292282, 0.0001258837239875259]
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


def _lgamma_pos(z, for32=False):
    """lgamma(z) for float64 z >= 0 (0 -> inf, inf -> inf): below 10 _lgamma_small, from
    10 on Stirling with (z - 1/2) log z in double-word (for32, a float32 result: plain)."""
    zs = select(z >= STIRLING_MIN, z, z.f(STIRLING_MIN))
    lh, ll = (_log(zs), zs.f(0.0)) if for32 else _log_dd(zs)
    h = zs - 0.5
    ph, pl = two_prod(h, lh)
    pl = fma(h, ll, pl)
    s, e = two_sum(ph, -zs)
    w = 1.0 / zs
    big = s + (e + pl + HALF_LOG_2PI + w * poly(w * w, STIRLING))
    big = select(ph < INF, big, ph)  # overflow (from z ~ 2.5e305): e would be inf - inf
    res = select(z < STIRLING_MIN, _lgamma_small(z, for32), big)
    return select(z.eq(INF), z, res)


def _lgamma_small(z, for32=False):
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
    r1, r2 = (LGAMMA_R1_F32, LGAMMA_R2_F32) if for32 else (LGAMMA_R1, LGAMMA_R2)
    acc = _poly_pick(y - select(near1, z.f(1.0), z.f(1.75)), near1, r1, r2)
    lg_y = (y - select(near1, z.f(1.0), z.f(2.0))) * acc
    logv = _log(select(up, z, prod))
    return lg_y + select(up, -logv, logv)


def _lgamma64(x, for32=False):
    """log|Gamma(x)|; x < 0 by reflection: log(pi / |x sin(pi x)|) - lgamma(-x), the log
    in double-word (|x sin(pi x)| = |x r| pi (1 + t), t = sin(pi r)/(pi r) - 1, r = x - rint(x))
    so that only the cancellation of the two terms themselves costs accuracy."""
    lp = _lgamma_pos(select(isnan(x), x.f(1.0), _fabs(x)), for32)
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


def _in_float64(fn64, doc):
    """An emitter for float32 and float64 from fn64(xd, for32): float32 is evaluated in double
    (for32 picks float32-grade polynomials) and rounded once."""
    def fn(x):
        if x.is32:
            return fn64(x.to(F64), for32=True).to(F32)
        return fn64(x)
    fn.__doc__ = doc
    return fn


def _positive_fast(pos64):
    """The cheap path of a reflected function: pos64 alone, for x > 0 (slow lanes: x <= 0
    and nan, which need the reflection)."""
    def fast(x):
        xd = x.to(F64)
        positive = xd > 0.0
        res = pos64(select(positive, xd, xd.f(1.0)), x.is32)
        return (res.to(F32) if x.is32 else res), ~positive
    fast.slow_lanes = lambda x: ~(x > 0.0)
    return fast


def _by_width(fast32, slow32, fast64):
    """One cheap path per float type, each with its slow-lane mask taken from the argument
    alone (fast.slow_lanes, see vecmath_variants)."""
    def fast(x):
        return fast32(x) if x.is32 else fast64(x)
    fast.slow_lanes = lambda x: slow32(x) if x.is32 else fast64.slow_lanes(x)
    return fast


_lgamma = _in_float64(_lgamma64, "lgamma(x) = log|Gamma(x)| (scipy.special.gammaln); float32 "
                      "through float64.")
# float32 from 4 on: Stirling's first five terms (the sixth is below 2**-31 of the result)
STIRLING_MIN_F32 = 4.0
# lgamma(y) = (y - 2) Q(y - 2) on [1.5, 2.5], relative error 2**-34.9 (vecmath_fit)
LGAMMA_Q_F32 = [0.422784335106349, 0.32246703366154006, -0.06735230274558149,
                0.020580789150347528, -0.007385491349884061, 0.0028909444336479057,
                -0.0011935239846439397, 0.0005057199676935599, -0.0002187250543590835,
                0.00011489264706466407, -5.621812708443574e-05]


def _lgamma32_fast(x):
    """float32 lgamma in double with one log and one polynomial per lane.  Slow lanes: nan,
    +-inf and x <= -4.

    Below |x| = 4 the recurrence moves x, of either sign, to y = x + n in [1.5, 2.5):
      n > 0:  lgamma(x) = lgamma(y) - log|x (x+1) ... (x+n-1)|
      n < 0:  lgamma(x) = lgamma(y) + log((x-1) ... (x+n))
    every factor exact and the poles at 0, -1, -2, -3 exact zeros.  Where the two terms
    cancel (next to the zeros of lgamma) the float32 result is still far above double's
    rounding, so no reflection and no double-word arithmetic is needed; from 4 on, Stirling."""
    xd = x.to(F64)
    n = _floor(2.5 - xd)
    y = xd + n
    up = xd.f(1.0)
    for i in range(6):  # n <= 6 below |x| = 4
        up = up * select(n > float(i), _fabs(xd + float(i)), xd.f(1.0))
    down = select(n < -1.5, (xd - 1.0) * (xd - 2.0), select(n < -0.5, xd - 1.0, xd.f(1.0)))
    big = xd >= STIRLING_MIN_F32
    arg = select(big, xd, select(n > 0.5, up, down))
    logv = _log_for32(select(arg > 0.0, arg, xd.f(1.0)))
    small = (y - 2.0) * poly(y - 2.0, LGAMMA_Q_F32) + select(n > 0.5, -logv, logv)
    w = (1.0 / x).to(F64)  # a float32 division: its 2**-24 costs < 0.01 ulp here
    stirling = ((xd - 0.5) * logv - xd) + (HALF_LOG_2PI + w * poly(w * w, STIRLING[:5]))
    res = select(big, stirling, small)
    res = select(arg.eq(0.0), xd.f(INF), res)  # the poles
    return res.to(F32), _lgamma32_slow(x)


def _lgamma32_slow(x):
    return ~((x > -STIRLING_MIN_F32) & (x < INF))  # and nan


_lgamma_fast = _by_width(_lgamma32_fast, _lgamma32_slow, _positive_fast(_lgamma_pos))


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
# the same for a float32 result (relative error 2**-33.0 and 2**-34.3; vecmath_fit)
DIGAMMA_QA_F32 = [1.074758909787235, -0.5791664822094374, 0.4002391335096454,
                  -0.2998193292684053, 0.23227889774875904, -0.18279080309003165,
                  0.14440889871684537, -0.11491337848714392, 0.1019404563887928,
                  -0.08198473560564039]
DIGAMMA_QB_F32 = [0.8581832171282051, -0.32625462642702424, 0.15712011155489225,
                  -0.08228589291985894, 0.04479990726127945, -0.024872478875914743,
                  0.013973772568226371, -0.008281450720943627, 0.004719274350827605]
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


def _digamma_pos(z, for32=False):
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
    qa, qb = (DIGAMMA_QA_F32, DIGAMMA_QB_F32) if for32 else (DIGAMMA_QA, DIGAMMA_QB)
    acc = _poly_pick(y - select(low, zc.f(1.25), zc.f(1.75)), low, qa, qb)
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


def _digamma64(x, for32=False):
    """psi(x); x < 0 by reflection: psi(1 - x) - pi cot(pi x), cot from sin(pi r) and
    cos(pi r), r = x - rint(x).  Poles as scipy.special.digamma: psi(+-0) = -+inf, nan at
    the negative integers and -inf."""
    neg_x = x < 0.0
    u, ul = two_sum(x.f(1.0), -x)  # 1 - x exactly; psi(u + ul) ~ psi(u) + psi'(u) ul
    pp = _digamma_pos(select(isnan(x), x.f(1.0), select(neg_x, u, x)), for32)
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


_digamma = _in_float64(_digamma64, "psi(x) = d/dx log|Gamma(x)| (scipy.special.digamma); "
                       "float32 through float64.")
# psi(z) from 4 on for a float32 result: seven terms (the eighth is below 2**-33 of psi)
DIGAMMA_MIN_F32 = 4.0


def _reciprocal_sum(xd, n):
    """sum 1/(x + i) over 0 <= i < n (n <= 6) as one fraction (num, den): the step up of
    the recurrence, one division for every term."""
    num, den = xd.f(0.0), xd.f(1.0)
    for i in range(6):
        a = xd + float(i)
        use = n > float(i)
        num = select(use, fma(num, a, den), num)
        den = select(use, den * a, den)
    return num, den


def _digamma32_fast(x):
    """float32 digamma in double with one division, one polynomial and one log per lane.
    Slow lanes: nan, +inf, x <= -4 and the poles.

    Below |x| = 4 the recurrence moves x, of either sign, to y = x + n in [1, 2), where
    psi = (y - x0) Q(y) keeps the zero x0 = 1.46... exact (as _digamma_pos):
      n > 0:  psi(x) = psi(y) - sum 1/(x + i), 0 <= i < n
      n < 0:  psi(x) = psi(y) + 1/(x - 1) [+ 1/(x - 2)]
    the sum a single fraction, every factor exact; from 4 on the asymptotic series, whose
    1/x is the same division."""
    xd = x.to(F64)
    n = _floor(2.0 - xd)
    y = xd + n
    num, den = _reciprocal_sum(xd, n)
    two_down = n < -1.5
    num = select(n < -0.5, -select(two_down, 2.0 * xd - 3.0, xd.f(1.0)), num)
    den = select(n < -0.5, select(two_down, (xd - 1.0) * (xd - 2.0), xd - 1.0), den)
    big = xd >= DIGAMMA_MIN_F32
    q = select(big, xd.f(1.0), num) / select(big, xd, den)
    low = y < 1.5
    acc = _poly_pick(y - select(low, xd.f(1.25), xd.f(1.75)), low, DIGAMMA_QA_F32, DIGAMMA_QB_F32)
    small = ((y - DIGAMMA_ROOT) - DIGAMMA_ROOT_LO) * acc - q
    w = q * q
    logx = _log_for32(select(big, xd, xd.f(1.0)))
    asymptotic = (logx - 0.5 * q) - w * poly(w, DIGAMMA_ASYMPTOTIC[:7])
    res = select(big, asymptotic, small)
    return res.to(F32), _digamma32_slow(x)


def _digamma32_slow(x):
    pole = (x <= 0.0) & _rint(x).eq(x)
    return ~((x > -DIGAMMA_MIN_F32) & (x < INF)) | pole


_digamma_fast = _by_width(_digamma32_fast, _digamma32_slow, _positive_fast(_digamma_pos))
