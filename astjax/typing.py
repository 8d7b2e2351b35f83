"""jax.typing's names, for annotations: `ArrayLike` (what a function of arrays accepts) and
`DTypeLike` (what names a dtype)."""
from typing import Union

import numpy as np

from .numpy import ndarray as Array

ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
DTypeLike = Union[str, type, np.dtype]

__all__ = ["ArrayLike", "DTypeLike"]
