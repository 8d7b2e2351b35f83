"""Abstract values: what the compiler knows of an array (shape and dtype), and NumPy's dtype rules.

A `weak` value is a Python scalar that became an array: like NumPy 2 (NEP 50) and JAX, it takes
the dtype of the array it meets instead of widening it (`x_f32 * 2.0` stays float32)."""
import math
from dataclasses import dataclass

import numpy as np

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


def aval_of(value) -> AVal:
    """The abstract value of a concrete array or Python/NumPy scalar."""
    if isinstance(value, (bool, int, float, complex)):
        return AVal((), python_scalar_dtype(value), weak=True)
    if isinstance(value, DimExpr):  # a symbolic size used as a value: a weak integer
        return AVal((), np.dtype(np.int64), weak=True)
    arr = np.asarray(value)
    return AVal(arr.shape, arr.dtype)


def python_scalar_dtype(value) -> np.dtype:
    if isinstance(value, bool):
        return np.dtype(bool)
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    return np.dtype(np.complex128)


_WEAK_STAND_IN = {"b": True, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def result_dtype(*avals: AVal) -> tuple:
    """(dtype, weak) of an elementwise operation on these operands, by NEP 50."""
    strong = [a.dtype for a in avals if not a.weak]
    weak = [_WEAK_STAND_IN[a.dtype.kind] for a in avals if a.weak]
    if not strong:
        return np.result_type(*[np.asarray(w).dtype for w in weak]), True
    return np.result_type(*strong, *weak), False


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind in "fc"

