"""Vectorisable scalar math for Numba loop bodies (float32 and float64).

The llvmlite wheels carry no SVML, so inside ``@njit`` ``np.exp`` & co. become scalar libm
calls and a fused ``prange`` loop stays scalar.  Every function here is a
``numba.extending.intrinsic`` that emits branch-free LLVM IR straight into the caller
(range reduction + polynomial, ``select`` for special cases, ``fma``, bit casts), so the
loop vectoriser widens it to ``<16 x float>`` / ``<8 x double>`` on AVX-512.  The emitters
live by family in `explog`, `trig` and `special` (on the IR helpers of `ir`; the vector
variants in `variants`); this module registers them and is the public API.

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
* Special values, accuracy (measured ulps per function and dtype, and the documented
  exceptions), fast-math behaviour, which float32 functions compute in float64, and the
  cheap-path calls of sin/cos/tan/pow/lgamma/digamma: ACCURACY.md beside this file.
  tests/test_vecmath.py asserts the bounds stated there.

Signatures (``T`` is float32 or float64; ints/bools -> float64)::

    exp exp2 expm1 log log2 log10 log1p sinh cosh tanh sin cos tan arcsin arccos arctan
    arcsinh arccosh arctanh logistic(=expit=sigmoid) softplus erf erfc erfinv cbrt sqrt
    lgamma(=gammaln) digamma(=psi) abs(=absolute) floor ceil trunc rint    : (T) -> T
    arctan2(y, x) pow(=power)(x, y) logaddexp logaddexp2 hypot copysign
    minimum maximum fmin fmax                                              : (T, T) -> T
"""
from numba import types
from numba.core import typing as _typing
from numba.extending import intrinsic

from . import variants as _variants
from .ir import V, F32, F64, select, isnan
# aliased: the public names below (sqrt, floor, rint, ...) rebind these module globals
from .ir import (sqrt as _vsqrt, fabs as _fabs, floor as _floor, ceil as _ceil,
                         trunc as _trunc, rint as _rint, copysign as _copysign)
# the emitters, by family
from .explog import (_exp, _expm1, _tanh, _log, _log1p, _exp2, _log2, _log10, _sinh,
                             _cosh, _logistic, _softplus, _logaddexp, _logaddexp2, _pow,
                             _pow32_fast)
from .trig import (_sin, _sin_fast, _cos, _cos_fast, _tan, _tan_fast, _arctan, _arctan2,
                           _arcsin, _arccos, _arcsinh, _arccosh, _arctanh)
from .special import (_cbrt, _hypot, _erf, _erfc, _erfinv, _lgamma, _lgamma_fast,
                              _digamma, _digamma_fast)

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
