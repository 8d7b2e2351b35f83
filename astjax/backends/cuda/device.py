"""Device functions that generated CUDA kernels call under the names the Numba backend's code
uses (`vecmath.exp`, `rt.radd`, ...): the same kernel text runs on the GPU with CUDA's math
library (libdevice) in place of vecmath's CPU vector code and the runtime's intrinsics."""
import math

from numba import cuda

device = cuda.jit(device=True)


@device
def exp(x):
    return math.exp(x)


@device
def expm1(x):
    return math.expm1(x)


@device
def exp2(x):
    return math.pow(2.0, x)


@device
def log(x):
    return math.log(x)


@device
def log1p(x):
    return math.log1p(x)


@device
def log2(x):
    return math.log2(x)


@device
def log10(x):
    return math.log10(x)


@device
def sin(x):
    return math.sin(x)


@device
def cos(x):
    return math.cos(x)


@device
def tan(x):
    return math.tan(x)


@device
def sinh(x):
    return math.sinh(x)


@device
def cosh(x):
    return math.cosh(x)


@device
def tanh(x):
    return math.tanh(x)


@device
def arcsin(x):
    return math.asin(x)


@device
def arccos(x):
    return math.acos(x)


@device
def arctan(x):
    return math.atan(x)


@device
def arcsinh(x):
    return math.asinh(x)


@device
def arccosh(x):
    return math.acosh(x)


@device
def arctanh(x):
    return math.atanh(x)


@device
def arctan2(y, x):
    return math.atan2(y, x)


@device
def erf(x):
    return math.erf(x)


@device
def erfc(x):
    return math.erfc(x)


@device
def sqrt(x):
    return math.sqrt(x)


@device
def abs(x):  # noqa: A001 (vecmath's name)
    return math.fabs(x)


@device
def floor(x):
    return math.floor(x)


@device
def ceil(x):
    return math.ceil(x)


@device
def rint(x):
    """Round half to even, as NumPy's rint."""
    r = math.floor(x)
    diff = x - r
    if diff > 0.5 or (diff == 0.5 and r % 2 == 1):
        r += 1.0
    return r


@device
def logistic(x):
    return 1.0 / (1.0 + math.exp(-x))


@device
def logaddexp(a, b):
    m = max(a, b)
    return m + math.log1p(math.exp(-math.fabs(a - b))) if m > -math.inf else m


@device
def pow(x, y):  # noqa: A001 (vecmath's name)
    return x ** y


@device
def maximum(a, b):
    return a if (a > b or a != a) else b


@device
def minimum(a, b):
    return a if (a < b or a != a) else b


# ---------------------------------------------------------------- the runtime's names
@device
def radd(acc, v):
    return acc + v


@device
def rmul(acc, v):
    return acc * v


@device
def rmax(acc, v):
    return v if (v > acc or v != v) else acc


@device
def rmin(acc, v):
    return v if (v < acc or v != v) else acc


@device
def clip_index(i, size):
    if i < 0:
        i += size
    return min(max(i, 0), max(size - 1, 0))
