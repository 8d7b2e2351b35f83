"""Abstract values: what the compiler knows of an array (shape and dtype), and NumPy's dtype rules.

A `weak` value is a Python scalar that became an array: like NumPy 2 (NEP 50) and JAX, it takes
the dtype of the array it meets instead of widening it (`x_f32 * 2.0` stays float32)."""
import math
from dataclasses import dataclass

import numpy as np

from ..config import x64_enabled as x64
from .dims import DimExpr


@dataclass(frozen=True)
class AVal:
    shape: tuple
    dtype: np.dtype
    weak: bool = False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self):
        """The number of elements: an int, or a DimExpr when a size is symbolic."""
        return math.prod(self.shape)

    def strong(self) -> "AVal":
        return AVal(self.shape, self.dtype)

    def __str__(self) -> str:
        dims = ",".join(str(d) for d in self.shape)
        return f"{self.dtype.name}[{dims}]{'~' if self.weak else ''}"


# ---------------------------------------------------------------- 64-bit values or not
# With `jax_enable_x64` off, as in JAX, no value is 64 bits wide: arguments, constants and
# results are narrowed to 32 bits where they enter (`canonical_value`), the `dtype` a function
# asks for is narrowed (`canonical_dtype`), and a result that a primitive's NumPy rule would
# widen (int32 + float32) is converted back, so all math follows JAX's 32-bit dtypes.
_NARROW = {"i": np.dtype(np.int32), "u": np.dtype(np.uint32), "f": np.dtype(np.float32),
           "c": np.dtype(np.complex64)}


def canonical_dtype(dtype) -> np.dtype:
    """dtype as values have it now: unchanged with x64, else 64-bit kinds narrowed to 32."""
    dtype = np.dtype(dtype)
    if x64() or dtype.kind not in _NARROW or dtype.itemsize <= _NARROW[dtype.kind].itemsize:
        return dtype
    return _NARROW[dtype.kind]


def canonical_value(value):
    """A concrete NumPy value in its canonical dtype (a copy only when it narrows); Python
    scalars stay as they are: they are weakly typed and take their partner's dtype."""
    if x64() or not isinstance(value, (np.ndarray, np.generic)):
        return value
    dtype = canonical_dtype(value.dtype)
    return value if dtype == value.dtype else value.astype(dtype)


def aval_of(value) -> AVal:
    """The abstract value of a concrete array or Python/NumPy scalar."""
    if isinstance(value, (bool, int, float, complex)):
        return AVal((), python_scalar_dtype(value), weak=True)
    if isinstance(value, DimExpr):  # a symbolic size used as a value: a weak integer
        return AVal((), canonical_dtype(np.int64), weak=True)
    arr = np.asarray(value)
    return AVal(arr.shape, canonical_dtype(arr.dtype))


def python_scalar_dtype(value) -> np.dtype:
    if isinstance(value, bool):
        return np.dtype(bool)
    if isinstance(value, int):
        return canonical_dtype(np.int64)
    if isinstance(value, float):
        return canonical_dtype(np.float64)
    return canonical_dtype(np.complex128)


_WEAK_STAND_IN = {"b": True, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def result_dtype(*avals: AVal) -> tuple:
    """(dtype, weak) of an elementwise operation on these operands: NEP 50's rule for
    Python scalars, and JAX's for arrays, where an integer or bool array meeting a float or
    complex one takes that one's dtype (int32 + float32 and int64 + float32 are float32;
    NumPy says float64)."""
    strong = [a.dtype for a in avals if not a.weak]
    weak = [_WEAK_STAND_IN[a.dtype.kind] for a in avals if a.weak]
    if not strong:
        return np.result_type(*[np.asarray(w).dtype for w in weak]), True
    inexact = [d for d in strong if d.kind in "fc"]
    return np.result_type(*(inexact or strong), *weak), False


def to_inexact(dtype) -> np.dtype:
    """The float dtype JAX computes an integer or bool dtype's float functions in (sqrt, mean,
    true division): float32 up to 32 bits, float64 for 64 (NumPy: always float64)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return dtype
    return canonical_dtype(np.float64 if dtype.itemsize == 8 else np.float32)


def promotion_target(avals: list, float_only: bool = False):
    """The dtype an elementwise operation's operands are converted to before it runs (see
    `converted`; integers to a float first when the operation computes only in floats), or
    None when NumPy's own promotion already gives JAX's dtype."""
    dtype, _ = result_dtype(*avals)
    if dtype.kind not in "fc" and float_only and \
            any(not a.weak and a.dtype.kind in "iub" for a in avals):
        return to_inexact(dtype)
    return dtype if any(converted(a, dtype) for a in avals) else None


def converted(aval: AVal, target) -> bool:
    """Whether an operand is converted to the promotion target first: a strong integer or
    bool array among floats, or a weak value of another dtype (`where(c, 1.0, -1.0)`, a loop
    counter: at run time an array, whose dtype NumPy would let widen the result). Literal
    Python numbers are left to NumPy, which lets them adapt (core/bind.py)."""
    if aval.dtype == target:
        return False
    if aval.weak:
        return True
    return aval.dtype.kind in "iub" and target.kind in "fc"


def promoted_values(values: list, float_only: bool = False) -> list:
    """Concrete operands (NumPy arrays, Python numbers) in JAX's promotion: what the compiler
    does to abstract ones (core/bind.py), for eager primitives and Array math."""
    avals = [aval_of(v) for v in values]
    dtype = promotion_target(avals, float_only)
    if dtype is None:
        return values
    return [np.asarray(v).astype(dtype) if converted(a, dtype) else v
            for v, a in zip(values, avals)]


def promote_types(a, b) -> np.dtype:
    """JAX's promotion of two dtypes (see result_dtype)."""
    return result_dtype(AVal((), np.dtype(a)), AVal((), np.dtype(b)))[0]


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind in "fc"

