"""Tests for astjax.backends.vecmath: accuracy (ulps vs independent oracles), special values,
vectorisation of a fused loop (LLVM IR), dtype preservation, fastmath-independence.

Oracles: float32 results are checked against NumPy/`math` in float64 (exact enough: a
float64 result rounds to the float32 answer except within 2**-29 ulp of a tie); float64
results against mpmath at 113 bits.  Kernels are compiled once per function and dtype.
"""
import math
import re

import mpmath as mp
import numpy as np
import pytest
import scipy.special as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numba import njit

from astjax.backends import vecmath as vm

mp.mp.prec = 113
F32, F64 = np.float32, np.float64
RNG_SEED = 20240611


# ---------------------------------------------------------------------------------------
# Reference functions: (float64 numpy oracle for float32 tests, mpmath oracle for float64)
def _mp_log1p(x):
    return mp.log1p(x) if x > -1 else (mp.mpf("-inf") if x == -1 else mp.nan)


def _mp_log(x):
    return mp.log(x) if x > 0 else (mp.mpf("-inf") if x == 0 else mp.nan)


def _mp_logn(base):
    def f(x):
        v = _mp_log(x)
        return v / mp.log(base) if mp.isfinite(v) else v
    return f


def _np_logistic(x):
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype)


def _mp_erfinv(x):
    if abs(x) > 1:
        return mp.nan
    return mp.inf * mp.sign(x) if abs(x) == 1 else mp.erfinv(x)


_verf = np.vectorize(math.erf, otypes=[F64])
_verfc = np.vectorize(math.erfc, otypes=[F64])


def _np_erfinv(x):
    """float64 oracle for the float32 checks: Newton on libm's erf/erfc (the residual from
    erfc near 1), from a crude start; converges to ~1 ulp of float64."""
    x = np.asarray(x, F64)
    a = np.abs(x)
    with np.errstate(all="ignore"):
        w = -np.log((1 - a) * (1 + a))  # start: Giles' single-precision formula
        y = np.where(w < 5, np.polyval([2.81022636e-08, 3.43273939e-07, -3.5233877e-06,
                                        -4.39150654e-06, 0.00021858087, -0.00125372503,
                                        -0.00417768164, 0.246640727, 1.50140941], w - 2.5),
                     np.polyval([-0.000200214257, 0.000100950558, 0.00134934322,
                                 -0.00367342844, 0.00573950773, -0.0076224613,
                                 0.00943887047, 1.00167406, 2.83297682], np.sqrt(w) - 3)) * a
        for _ in range(6):
            r = np.where(a < 0.5, _verf(y) - a, (1 - a) - _verfc(y))
            y = y - r / (2 / np.sqrt(np.pi) * np.exp(-y * y))
        y = np.where(a == 1, np.inf, np.where(a > 1, np.nan, y))
        return np.where(x == 0, x, np.copysign(y, x))


ORACLES = {
    # name: (numpy float64 function, mpmath function)
    "exp": (np.exp, mp.exp),
    "expm1": (np.expm1, mp.expm1),
    "tanh": (np.tanh, mp.tanh),
    "log": (np.log, _mp_log),
    "log1p": (np.log1p, _mp_log1p),
    "sin": (np.sin, mp.sin),
    "cos": (np.cos, mp.cos),
    "tan": (np.tan, mp.tan),
    "exp2": (np.exp2, lambda x: mp.mpf(2) ** x),
    "log2": (np.log2, _mp_logn(2)),
    "log10": (np.log10, _mp_logn(10)),
    "sinh": (np.sinh, mp.sinh),
    "cosh": (np.cosh, mp.cosh),
    "logistic": (_np_logistic, lambda x: 1 / (1 + mp.exp(-x))),
    "softplus": (lambda x: np.logaddexp(x, 0.0), lambda x: mp.log1p(mp.exp(x))),
    "arctan": (np.arctan, mp.atan),
    "arcsin": (np.arcsin, lambda x: mp.asin(x) if abs(x) <= 1 else mp.nan),
    "arccos": (np.arccos, lambda x: mp.acos(x) if abs(x) <= 1 else mp.nan),
    "arcsinh": (np.arcsinh, mp.asinh),
    "arccosh": (np.arccosh, lambda x: mp.acosh(x) if x >= 1 else mp.nan),
    "arctanh": (np.arctanh, lambda x: mp.atanh(x) if abs(x) < 1 else (mp.inf * x if abs(x) == 1 else mp.nan)),
    "cbrt": (np.cbrt, lambda x: mp.cbrt(x) if x >= 0 else -mp.cbrt(-x)),
    "erf": (np.vectorize(math.erf, otypes=[F64]), lambda x: mp.erf(x) if abs(x) < 30 else mp.sign(x)),
    "erfc": (np.vectorize(math.erfc, otypes=[F64]), lambda x: mp.erfc(x) if abs(x) < 30 else 1 - mp.sign(x)),
    "erfinv": (_np_erfinv, _mp_erfinv),
    "sqrt": (np.sqrt, lambda x: mp.sqrt(x) if x >= 0 else mp.nan),
    "abs": (np.abs, abs),
}

# Dense sweep domains (in addition to samples over all bit patterns).
DOMAINS = {
    "exp": [(-104, 89), (-1, 1), (-746, 710)],
    "expm1": [(-20, 89), (-1, 1), (-1e-3, 1e-3), (-50, 710)],
    "tanh": [(-10, 10), (-1, 1), (-1e-3, 1e-3), (-25, 25)],
    "log": [(0, 4), (0.5, 2), (0, 1e30)],
    "log1p": [(-1, 4), (-1e-3, 1e-3), (-1, 1e30)],
    "sin": [(-10, 10), (-1e4, 1e4), (-1e7, 1e7)],
    "cos": [(-10, 10), (-1e4, 1e4), (-1e7, 1e7)],
    "tan": [(-10, 10), (-1e4, 1e4), (-1e7, 1e7)],
    "exp2": [(-151, 129), (-1, 1), (-1080, 1030)],
    "log2": [(0, 4), (0.5, 2), (0, 1e30)],
    "log10": [(0, 4), (0.5, 2), (0, 1e30)],
    "sinh": [(-90, 90), (-2, 2), (-1e-3, 1e-3), (-711, 711)],
    "cosh": [(-90, 90), (-2, 2), (-711, 711)],
    "logistic": [(-110, 30), (-5, 5), (-750, 40)],
    "softplus": [(-110, 100), (-5, 5), (-750, 750)],
    "arctan": [(-4, 4), (-1e3, 1e3), (-1e-3, 1e-3)],
    "arcsin": [(-1, 1), (0.4, 0.6), (0.97, 1)],
    "arccos": [(-1, 1), (0.4, 0.6), (0.97, 1)],
    "arcsinh": [(-5, 5), (-1e5, 1e5), (-1e-3, 1e-3)],
    "arccosh": [(1, 5), (1, 1.01), (1, 1e5)],
    "arctanh": [(-1, 1), (0.4, 0.6), (0.99, 1)],
    "cbrt": [(-10, 10), (-1e30, 1e30), (-1e-3, 1e-3)],
    "erf": [(-6, 6), (-1, 1), (-0.6, 0.6), (-30, 30)],
    "erfc": [(-6, 11), (-1, 1), (0, 28), (-30, 30)],
    "erfinv": [(-1, 1), (0.99, 1), (-0.6, 0.6), (0.999999, 1)],
    "sqrt": [(0, 100)],
    "abs": [(-100, 100)],
}

UNARY = list(ORACLES)

SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
            1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38, 3.4028235e38, -3.4028235e38,
            88.72, 88.73, -87.3, -103.9, -104.0, 89.0, 1e-8, -1e-8, 1e30, -1e30]
SPECIALS64 = SPECIALS + [5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                         -1.7976931348623157e308, 709.78, 709.79, -745.1, -745.2, 1e300,
                         -1e300, 1e22, 6381956970095103 * 2.0**797]


# ---------------------------------------------------------------------------------------
# Kernels: one per function, compiled per dtype on first use (module-level memo).
_KERNELS = {}


def kernel(name):
    if name not in _KERNELS:
        ns = {"vm": vm, "np": np}
        exec(f"def k(x, out):\n    for i in range(x.size):\n        out[i] = vm.{name}(x[i])\n", ns)
        _KERNELS[name] = njit(ns["k"])
    return _KERNELS[name]


def run(name, x):
    out = np.empty_like(x)
    kernel(name)(x, out)
    return out


# ---------------------------------------------------------------------------------------
# ulp error measurement
def ulp_err32(got, ref):
    """|got - ref| in float32 ulps of ref (ref float64); 0 where both agree exactly on
    specials (nan/inf/signed zero); inf where they disagree there."""
    with np.errstate(all="ignore"):
        got = got.astype(F64)
        _, e = np.frexp(ref)
        ulp = np.ldexp(1.0, np.maximum(e - 24, -149))
        err = np.abs(got - ref) / ulp
        ref32 = ref.astype(F32).astype(F64)
    return _specials(got, ref32, err)


def ulp_err64(got, refhi, reflo):
    with np.errstate(all="ignore"):
        _, e = np.frexp(refhi)
        ulp = np.ldexp(1.0, np.maximum(e - 53, -1074))
        err = np.abs((got - refhi) - reflo) / ulp
    return _specials(got, refhi, err)


def _specials(got, ref, err):
    nonfinite = ~np.isfinite(ref) | ~np.isfinite(got)
    same = (got == ref) & (np.signbit(got) == np.signbit(ref))
    same |= np.isnan(got) & np.isnan(ref)
    err = np.where(nonfinite, np.where(same, 0.0, np.inf), err)
    zero = (ref == 0) & (got == 0)
    return np.where(zero, np.where(np.signbit(got) == np.signbit(ref), 0.0, np.inf), err)


def mp_ref(name, x):
    f = ORACLES[name][1]
    hi, lo = np.empty(x.size), np.empty(x.size)
    for i, v in enumerate(x.tolist()):
        if math.isnan(v):
            hi[i], lo[i] = np.nan, 0.0
            continue
        r = f(mp.mpf(v)) if math.isfinite(v) and v != 0 else _mp_nonfinite(name, v)
        if isinstance(r, float):
            hi[i], lo[i] = r, 0.0
        elif isinstance(r, mp.mpc) or mp.isnan(r):
            hi[i], lo[i] = np.nan, 0.0
        elif mp.isinf(r):
            hi[i], lo[i] = float(r), 0.0
        else:
            h = float(r)
            hi[i] = h
            lo[i] = float(r - h) if math.isfinite(h) else 0.0
    return hi, lo


def _mp_nonfinite(name, v):
    # NumPy defines the answer at +-inf and +-0 (mpmath has no signed zero); the exact
    # special values are tested against NumPy separately.
    with np.errstate(all="ignore"):
        return float(ORACLES[name][0](np.array([v], F64))[0])  # array path (scalars differ)


def np_ref(name, x):
    with np.errstate(all="ignore"):
        return ORACLES[name][0](x.astype(F64))


def check32(name, x, bound=None):
    got = run(name, x)
    assert got.dtype == F32
    err = ulp_err32(got, np_ref(name, x))
    i = int(np.argmax(err))
    bound = vm.ULP_BOUNDS[name][0] if bound is None else bound
    assert err[i] <= bound, f"{name} f32 x={x[i]!r} got={got[i]!r} ref={np_ref(name, x[i:i+1])[0]!r} err={err[i]} ulp"
    return float(err.max())


def check64(name, x, bound=None):
    got = run(name, x)
    assert got.dtype == F64
    hi, lo = mp_ref(name, x)
    err = ulp_err64(got, hi, lo)
    i = int(np.argmax(err))
    bound = vm.ULP_BOUNDS[name][1] if bound is None else bound
    assert err[i] <= bound, f"{name} f64 x={x[i]!r} got={got[i]!r} ref={hi[i]!r} err={err[i]} ulp"
    return float(err.max())


def sweep(dtype, name, n_lin, n_bits, seed=0):
    """Dense linear grids over the domains + uniform samples of all bit patterns."""
    rng = np.random.default_rng(RNG_SEED + seed)
    parts = [np.linspace(a, b, n_lin, dtype=F64).astype(dtype) for a, b in DOMAINS[name]]
    parts.append(rng.uniform(*DOMAINS[name][0], n_lin).astype(dtype))
    if dtype == F32:
        parts.append(rng.integers(0, 2**32, n_bits, dtype=np.uint64).astype(np.uint32).view(F32))
    else:
        with np.errstate(all="ignore"):
            parts.append(rng.integers(0, 2**63, n_bits, dtype=np.int64).view(F64)
                         * rng.choice([-1.0, 1.0], n_bits))
    parts.append(np.array(SPECIALS if dtype == F32 else SPECIALS64, dtype=dtype))
    with np.errstate(all="ignore"):
        return np.concatenate(parts)


# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", UNARY)
def test_accuracy_f32(name):
    check32(name, sweep(F32, name, 200_000, 400_000))


@pytest.mark.parametrize("name", UNARY)
def test_accuracy_f64(name):
    check64(name, sweep(F64, name, 1_500, 3_000))


@pytest.mark.parametrize("name", UNARY)
def test_specials_match_numpy(name):
    """Exactly NumPy's answer (value, nan-ness, sign of zero) on the special inputs."""
    for dt in (F32, F64):
        x = np.array(SPECIALS if dt == F32 else SPECIALS64, dtype=dt)
        got = run(name, x)
        with np.errstate(all="ignore"):
            ref = ORACLES[name][0](x.astype(F64)).astype(dt)
        nonfin = ~np.isfinite(ref) | (ref == 0)
        assert np.array_equal(got[nonfin], ref[nonfin], equal_nan=True), (name, dt, x[nonfin], got[nonfin])
        num = nonfin & ~np.isnan(ref)  # the sign of a NaN is not part of the contract
        assert np.array_equal(np.signbit(got[num]), np.signbit(ref[num])), (name, dt)


_f32_arrays = hnp.arrays(F32, 200, elements=st.floats(width=32, allow_nan=True, allow_infinity=True))
_f64_arrays = hnp.arrays(F64, 100, elements=st.floats(allow_nan=True, allow_infinity=True))
_hyp = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", UNARY)
def test_hypothesis(name):
    @_hyp
    @given(_f32_arrays, _f64_arrays)
    def inner(a32, a64):
        check32(name, a32)
        check64(name, a64)
    inner()


def test_large_argument_trig_f64():
    """Payne-Hanek cases: the hardest known double for reduction mod pi/2 and huge args."""
    x = np.array([6381956970095103 * 2.0**797, 1e300, 1.7976931348623157e308, 2.0**1000,
                  1e22, 5.319372648326541e+255, 2.0**60 + 1.0, 1e15], dtype=F64)
    for name in ("sin", "cos", "tan"):
        check64(name, x)


# ---------------------------------------------------------------------------------------
# lgamma = log|Gamma| and digamma = Gamma'/Gamma.  Their own checks: on the negative axis
# both are reflections that cancel next to each zero of the function, so there the error is
# bounded in ulps of the largest of the result and the two reflection terms (vecmath's
# documented contract):
#   lgamma(x) = L - lgamma(-x),      L = log(pi/|x sin(pi x)|)
#   digamma(x) = digamma(1 - x) - C,  C = pi cot(pi x)
def _c99_lgamma(v):
    try:
        return math.lgamma(v)
    except ValueError:  # poles: 0, -1, -2, ...
        return math.inf


def _ulps_of(scale, dtype):
    _, e = np.frexp(scale)
    if dtype == F32:
        return np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.ldexp(1.0, np.maximum(e - 53, -1074))


def _lgamma_terms(xs, ref):
    other = np.array([_c99_lgamma(-v) for v in xs])
    return np.maximum(np.abs(other), np.abs(ref + other))


def _digamma_terms(xs, ref):
    other = sp.digamma(1.0 - xs)
    return np.maximum(np.abs(other), np.abs(other - ref))


def _pole_values(name, xs):
    """C99/JAX lgamma: +inf at poles and +-inf; SciPy digamma: -+inf at +-0, nan at the
    negative integers and -inf, +inf at +inf."""
    if name == "lgamma":
        return np.where(np.isnan(xs), np.nan, np.inf)
    out = np.where(xs == np.inf, np.inf, np.nan)
    return np.where(xs == 0, np.where(np.signbit(xs), np.inf, -np.inf), out)


GAMMA_FAMILY = {
    # name: (float64 oracle for float32, mpmath oracle for float64, reflection-term scale)
    "lgamma": (np.vectorize(_c99_lgamma, otypes=[F64]), lambda v: mp.re(mp.loggamma(v)),
               _lgamma_terms),
    "digamma": (sp.digamma, mp.digamma, _digamma_terms),
}


def gamma_check(name, x, dtype, bound=4.0):
    with np.errstate(invalid="ignore"):  # signalling NaN bit patterns
        got, xs = run(name, x).astype(F64), x.astype(F64)
    pole = (xs <= 0) & (xs == np.floor(xs))
    special = pole | ~np.isfinite(xs)
    want = _pole_values(name, xs)
    assert np.array_equal(got[special], want[special], equal_nan=True), xs[special][got[special] != want[special]]
    xs, got = xs[~special], got[~special]
    if not xs.size:
        return 0.0
    ref32, ref64, terms = GAMMA_FAMILY[name]
    with np.errstate(all="ignore"):
        ref = ref32(xs) if dtype == F32 else np.array([float(ref64(mp.mpf(v))) for v in xs])
        scale = np.abs(ref)
        neg = xs < 0
        scale[neg] = np.maximum(scale[neg], terms(xs[neg], ref[neg]))
        err = np.abs(got - ref) / _ulps_of(scale, dtype)
    big = np.finfo(dtype).max * (1 + np.finfo(dtype).eps / 4)  # rounds to inf from here
    err[np.isinf(got) & (np.abs(ref) >= big) & (np.sign(got) == np.sign(ref))] = 0.0  # overflow
    i = int(np.argmax(err))
    assert err[i] <= bound, f"{name} {dtype.__name__} x={xs[i]!r} got={got[i]!r} ref={ref[i]!r} err={err[i]} ulp"
    return float(err.max())


GAMMA_DOMAINS = [(0, 10), (0.5, 2.5), (1 - 1e-3, 1 + 1e-3), (2 - 1e-3, 2 + 1e-3), (9, 11),
                 (1.46, 1.4633), (-10, 0), (-1, 0), (-200, 200), (0, 1e30), (-1e-30, 1e-30)]


@pytest.mark.parametrize("name", list(GAMMA_FAMILY))
def test_gamma_family_f32(name):
    rng = np.random.default_rng(RNG_SEED)
    parts = [np.linspace(a, b, 20_000) for a, b in GAMMA_DOMAINS]
    parts.append(rng.integers(0, 2**32, 100_000, dtype=np.uint64).astype(np.uint32).view(F32))
    parts.append(np.array(SPECIALS, F32))
    with np.errstate(all="ignore"):
        x = np.concatenate([p.astype(F32) for p in parts])
    gamma_check(name, x, F32)


@pytest.mark.parametrize("name", list(GAMMA_FAMILY))
def test_gamma_family_f64(name):
    rng = np.random.default_rng(RNG_SEED)
    parts = [np.linspace(a, b, 250) for a, b in GAMMA_DOMAINS]
    parts.append(rng.integers(0, 2**63, 500, dtype=np.int64).view(F64) * rng.choice([-1.0, 1.0], 500))
    parts.append(np.array(SPECIALS64 + [1 + 2.0**-40, 2 - 2.0**-40, 5e-324, -5e-324,
                                        1.4616321449683622, 1.4616321449683625], F64))
    with np.errstate(all="ignore"):
        gamma_check(name, np.concatenate(parts), F64)


@pytest.mark.parametrize("name", list(GAMMA_FAMILY))
def test_gamma_family_hypothesis(name):
    @_hyp
    @given(_f32_arrays, _f64_arrays)
    def inner(a32, a64):
        gamma_check(name, a32, F32)
        gamma_check(name, a64[np.abs(a64) < 1e6], F64)  # mpmath is slow far out; sweeps go there
    inner()


TRIG = ("sin", "cos", "tan")


def _mixed_lanes(dtype):
    """Ordinary arguments with huge ones at scattered lanes, at the fast path's edge, and a
    whole run of huge ones: vectors that take the fast path, vectors that fall back."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.uniform(-20, 20, 301)
    x[[3, 40, 41, 77, 160]] = [1e30, -3e9, 2.0**28, 7e12, -2.0**28]
    x[[5, 6]] = [np.nextafter(2.0**28, 0), -np.nextafter(2.0**28, 0)]
    x[200:240] = rng.uniform(1e9, 1e30, 40) * rng.choice([-1, 1], 40)
    x[[250, 251, 252]] = [np.inf, np.nan, -np.inf]
    return x.astype(dtype)


@pytest.mark.parametrize("name", TRIG)
def test_trig_fast_and_slow_lanes_in_one_vector(name):
    """sin/cos/tan run a Cody-Waite vector path and redo a vector with any huge lane by
    Payne-Hanek, lane by lane: every lane must come out right either way."""
    check32(name, _mixed_lanes(F32))
    check64(name, _mixed_lanes(F64))


def _scalar_calls(name, x):
    """name over x in a loop the vectoriser cannot widen (a recurrence): the scalar function.
    x must be finite (acc - acc would turn the next argument into nan)."""
    ns = {"vm": vm}
    exec(f"def k(x, out):\n    acc = x[0] - x[0]\n    for i in range(x.size):\n"
         f"        acc = vm.{name}(x[i] + (acc - acc))\n        out[i] = acc\n", ns)
    out = np.empty_like(x)
    njit(ns["k"])(x, out)
    return out


@pytest.mark.parametrize("name", TRIG)
def test_trig_scalar_call_outside_vector_loops(name):
    for dt, check in ((F32, check32), (F64, check64)):
        x = _mixed_lanes(dt)
        x = x[np.isfinite(x)]
        assert np.array_equal(_scalar_calls(name, x), run(name, x), equal_nan=True), (name, dt)
        check(name, x)


def _gamma_mixed_lanes(dtype):
    """lgamma's float32 fast path covers -4 < x < inf and digamma's x > 0: the other lanes
    (x <= -4, x <= 0, poles, nan, +-inf) scattered among fast ones, at the edges, and a run
    of them."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.uniform(-6, 6, 301)
    x[[3, 40, 41, 77, 78, 160]] = [-4.0, np.nextafter(-4.0, -5), np.nextafter(-4.0, 0),
                                   -3.0, 0.0, 4.0]
    x[200:240] = rng.uniform(-100, -4, 40)
    x[[250, 251, 252, 253]] = [np.inf, np.nan, -np.inf, -0.0]
    return x.astype(dtype)


@pytest.mark.parametrize("name", list(GAMMA_FAMILY))
def test_gamma_fast_and_slow_lanes_in_one_vector(name):
    for dt in (F32, F64):
        x = _gamma_mixed_lanes(dt)
        gamma_check(name, x, dt)
        x = x[np.isfinite(x) & ~((x <= 0) & (x == np.floor(x)))]  # poles: inf, nan
        with np.errstate(all="ignore"):
            assert np.array_equal(_scalar_calls(name, x), run(name, x), equal_nan=True), (name, dt)


def test_trig_calls_vector_variants():
    """The vectorised loop calls the widest vector version of sin, not the scalar one."""
    for dt, width in ((F32, "f32_v16"), (F64, "f64_v8")):
        k = kernel("sin")
        run("sin", np.ones(64, dt))
        llvm = "".join(k.inspect_llvm().values())
        assert f"call <{width[5:]} x i{32 if dt == F32 else 64}> @astjax_vecmath_sin_{width}" in llvm


# ---------------------------------------------------------------------------------------
# Vectorisation: a fused loop calling every function must compile to vector code with no
# libm calls.  (A regression to scalar code fails here.)
LIBM = re.compile(r"call [^@\n]*@(?:llvm\.(?:exp|exp2|log|log2|log10|sin|cos|tan|pow|powi|tanh|"
                  r"asin|acos|atan|atan2|sinh|cosh)\.|(?:exp|exp2|expm1|log|log2|log10|log1p|sin|"
                  r"cos|tan|sinh|cosh|tanh|asin|acos|atan|atan2|asinh|acosh|atanh|erf|erfc|pow|"
                  r"cbrt|hypot)f?\b)")


def _fused_source(unary, binary):
    # arccosh needs x >= 1: feed it exp(v) (still one dtype throughout)
    terms = [f"vm.{n}(vm.exp(v))" if n == "arccosh" else f"vm.{n}(v)" for n in unary]
    terms += [f"vm.{n}(v, w)" for n in binary]
    return ("def fused(x, y, out):\n    for i in prange(x.size):\n        v = x[i]\n"
            "        w = y[i]\n        out[i] = " + " + ".join(terms) + "\n")


@pytest.mark.parametrize("dtype, vec", [(F32, "<16 x float>"), (F64, "<8 x double>")])
def test_fused_loop_vectorises(dtype, vec):
    """One prange loop summing every function: one store, so no alias checks in the way."""
    from numba import prange
    binary = list(BINARY) + list(EXACT_BINARY)
    unary = UNARY + list(GAMMA_FAMILY)
    ns = {"vm": vm, "np": np, "prange": prange}
    exec(_fused_source(unary, binary), ns)
    k = njit(parallel=True)(ns["fused"])
    x = np.linspace(0.1, 0.9, 1000).astype(dtype)
    out = np.empty_like(x)
    k(x, x[::-1].copy(), out)
    llvm = "".join(k.inspect_llvm().values())
    assert vec in llvm, "fused loop did not vectorise"
    bad = sorted(set(LIBM.findall(llvm)))
    assert not bad, f"scalar libm calls in fused loop: {bad}"
    ref = sum(run(n, run("exp", x) if n == "arccosh" else x).astype(F64) for n in unary)
    ref = ref + sum(brun(n, x, x[::-1].copy()).astype(F64) for n in binary)
    assert np.allclose(out, ref, rtol=1e-5 if dtype == F32 else 1e-12)


def test_dtype_preserved_and_promotion():
    @njit
    def f(a, b, i):
        return vm.exp(a), vm.exp(b), vm.exp(i), vm.minimum(a, b), vm.minimum(a, 2)

    r = f(F32(1.0), F64(1.0), 1)
    assert [type(v) for v in r] == [float, float, float, float, float]  # boxed
    tys = [str(t) for t in f.overloads[f.signatures[0]].signature.return_type.types]
    assert tys == ["float32", "float64", "float64", "float64", "float32"]


def test_float32_kernel_has_no_double_math():
    """exp/log/tanh on float32 must not touch double (the lane width would halve)."""
    for name in ("exp", "log", "tanh", "log1p", "expm1"):
        k = kernel(name)
        run(name, np.ones(4, F32))
        llvm = k.inspect_llvm(k.signatures[[str(s[0]) for s in k.signatures].index("array(float32, 1d, C)")])
        assert "double" not in "\n".join(l for l in llvm.splitlines() if re.search(r"f(add|mul|sub|div)|fma", l)), name


def test_fastmath_caller_keeps_special_values():
    names = UNARY
    ns = {"vm": vm}
    body = "\n".join(f"        out[{j}, i] = vm.{n}(x[i])" for j, n in enumerate(names))
    exec(f"def fused(x, out):\n    for i in range(x.size):\n{body}\n", ns)
    kf = njit(fastmath=True)(ns["fused"])
    x = np.array(SPECIALS, dtype=F32)
    out = np.empty((len(names), x.size), F32)
    kf(x, out)
    for j, n in enumerate(names):
        assert np.array_equal(out[j], run(n, x), equal_nan=True), n


def test_libm_detector_sees_numba_np_exp():
    """Guard for the IR test above: Numba's own np.exp/np.sin are scalar libm calls."""
    @njit
    def k(x, out):
        for i in range(x.size):
            out[i] = np.exp(x[i]) + np.sin(x[i])

    x = np.ones(8, F32)
    k(x, np.empty_like(x))
    assert LIBM.findall("".join(k.inspect_llvm().values()))


# ---------------------------------------------------------------------------------------
# Binary functions
def _mp_pow(x, y):
    if x < 0:
        if y != int(y):
            return mp.nan
        r = mp.power(-x, y)
        return -r if int(y) % 2 else r
    return mp.power(x, y)


BINARY = {
    # name: (numpy float64 oracle, mpmath oracle or None, (lo, hi) sweep box)
    "arctan2": (np.arctan2, lambda y, x: mp.atan2(y, x), (-10, 10)),
    "hypot": (np.hypot, lambda x, y: mp.sqrt(x * x + y * y), (-1e3, 1e3)),
    "pow": (np.power, _mp_pow, (-30, 30)),
    "logaddexp": (np.logaddexp, lambda a, b: max(a, b) + mp.log1p(mp.exp(-abs(a - b))), (-100, 100)),
    "logaddexp2": (np.logaddexp2,
                   lambda a, b: max(a, b) + mp.log1p(mp.mpf(2) ** -abs(a - b)) / mp.log(2), (-100, 100)),
}
EXACT_BINARY = {"minimum": np.minimum, "maximum": np.maximum, "fmin": np.fmin,
                "fmax": np.fmax, "copysign": np.copysign}
_BK = {}


def bkernel(name):
    if name not in _BK:
        ns = {"vm": vm}
        exec(f"def k(x, y, out):\n    for i in range(x.size):\n        out[i] = vm.{name}(x[i], y[i])\n", ns)
        _BK[name] = njit(ns["k"])
    return _BK[name]


def brun(name, x, y):
    out = np.empty_like(x)
    bkernel(name)(x, y, out)
    return out


def binary_points(dtype, name, n, seed=0):
    rng = np.random.default_rng(RNG_SEED + seed)
    lo, hi = BINARY[name][2] if name in BINARY else (-10, 10)
    xs = [rng.uniform(lo, hi, n), rng.uniform(lo / 100, hi / 100, n)]
    ys = [rng.uniform(lo, hi, n), rng.uniform(lo / 100, hi / 100, n)]
    if dtype == F32:
        xs.append(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(F32))
        ys.append(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(F32))
    else:
        with np.errstate(all="ignore"):
            xs.append(rng.integers(0, 2**63, n, dtype=np.int64).view(F64) * rng.choice([-1.0, 1.0], n))
            ys.append(rng.integers(0, 2**63, n, dtype=np.int64).view(F64) * rng.choice([-1.0, 1.0], n))
    sp = np.array(SPECIALS, dtype=F64)
    xs.append(np.repeat(sp, sp.size))
    ys.append(np.tile(sp, sp.size))
    with np.errstate(all="ignore"):
        return np.concatenate(xs).astype(dtype), np.concatenate(ys).astype(dtype)


def bmp_ref(name, x, y):
    f = BINARY[name][1]
    hi, lo = np.empty(x.size), np.empty(x.size)
    for i, (a, b) in enumerate(zip(x.tolist(), y.tolist())):
        if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or b == 0:
            with np.errstate(all="ignore"):
                hi[i] = float(BINARY[name][0](np.array([a], F64), np.array([b], F64))[0])
                lo[i] = 0.0
            continue
        r = f(mp.mpf(a), mp.mpf(b))
        h = float(r)
        hi[i], lo[i] = h, (float(r - h) if math.isfinite(h) else 0.0)
    return hi, lo


def bcheck(dtype, name, x, y):
    got = brun(name, x, y)
    assert got.dtype == dtype
    if dtype == F32:
        with np.errstate(all="ignore"):
            ref = BINARY[name][0](x.astype(F64), y.astype(F64))
        err = ulp_err32(got, ref)
        refs = ref
    else:
        hi, lo = bmp_ref(name, x, y)
        err = ulp_err64(got, hi, lo)
        refs = hi
    bound = vm.ULP_BOUNDS[name][0 if dtype == F32 else 1]
    if name in ("logaddexp", "logaddexp2"):
        # documented (ULP_CANCELLED): where m + L (m = max(a, b) < 0, L > 0 the log1p term)
        # cancels, |result| < max(|m|, L), the error is bounded in ulps of max(|m|, L).
        m = np.maximum(x.astype(F64), y.astype(F64))
        with np.errstate(all="ignore"):
            scale = np.maximum(np.abs(m), np.abs(refs - m))  # |max|, or the log1p term
            cancelled = np.isfinite(refs) & (np.abs(refs) < scale)  # terms of opposite sign
            _, e = np.frexp(scale)
            ulp_m = np.ldexp(1.0, np.maximum(e - (24 if dtype == F32 else 53), -149 if dtype == F32 else -1074))
            abs_err = np.abs(got.astype(F64) - refs) / ulp_m
        lim = vm.ULP_CANCELLED[name][0 if dtype == F32 else 1]
        j = int(np.argmax(np.where(cancelled, abs_err, 0.0)))
        assert not cancelled[j] or abs_err[j] <= lim, f"{name} cancelled x={x[j]!r} y={y[j]!r} err={abs_err[j]}"
        err = np.where(cancelled, 0.0, err)
    i = int(np.argmax(err))
    assert err[i] <= bound, f"{name} {dtype.__name__} x={x[i]!r} y={y[i]!r} got={got[i]!r} ref={refs[i]!r} err={err[i]}"
    return float(err.max())


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_accuracy(name):
    x, y = binary_points(F32, name, 150_000)
    bcheck(F32, name, x, y)
    x, y = binary_points(F64, name, 1_000)
    bcheck(F64, name, x, y)


def test_pow_fast_and_slow_lanes_in_one_vector():
    """float32 pow runs plain-double log/exp for ordinary lanes and the C99 algorithm for
    vectors holding any other lane (x <= 0, denormal, inf, nan; y inf/nan; a result that
    over- or underflows): scattered such lanes must come out as NumPy gives them."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.uniform(0.1, 10, 400)
    y = rng.uniform(-5, 5, 400)
    odd = [7, 50, 51, 130, 131, 132, 222, 300, 301, 302, 399]
    x[odd] = [-2.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3.0, 1.0, 1e30, 2.0]
    y[odd] = [3.0, -1.0, 3.0, -0.5, 3.0, 1.0, 0.5, 0.5, np.inf, 9.0, -200.0]
    x[[20, 21]], y[[20, 21]] = [2.0, 0.5], [np.nan, -np.inf]
    x[250:290] = -rng.uniform(0.1, 10, 40)  # a run of negative bases with integer powers
    y[250:290] = rng.integers(-6, 7, 40)
    x, y = x.astype(F32), y.astype(F32)
    bcheck(F32, "pow", x, y)
    got = brun("pow", x, y)
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(F64), y.astype(F64)).astype(F32)
    special = ~np.isfinite(ref) | (ref == 0)
    assert np.array_equal(got[special], ref[special], equal_nan=True)


@pytest.mark.parametrize("name", list(EXACT_BINARY))
def test_binary_exact_wrappers(name):
    for dt in (F32, F64):
        x, y = binary_points(dt, "arctan2", 2_000)
        got = brun(name, x, y)
        ref = EXACT_BINARY[name](x, y)
        assert np.array_equal(got, ref, equal_nan=True)
        ok = ~np.isnan(ref)
        assert np.array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_hypothesis(name):
    @_hyp
    @given(_f32_arrays, _f32_arrays, _f64_arrays, _f64_arrays)
    def inner(a, b, c, d):
        bcheck(F32, name, a, b)
        bcheck(F64, name, c, d)
    inner()
