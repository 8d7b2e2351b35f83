"""`jax.dlpack`: arrays exchanged with other libraries (PyTorch, NumPy, JAX) without a copy,
through the DLPack protocol. astjax's arrays are host memory, so any CPU producer will do, and
an astjax array is itself a producer (NumPy's `__dlpack__`)."""
import numpy as np

from .numpy._host import from_dlpack  # noqa: F401

SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_))


def is_supported_dtype(dtype) -> bool:
    return np.dtype(dtype) in SUPPORTED_DTYPES


def to_dlpack(x, stream=None):
    """A DLPack capsule of x (JAX's old spelling; `np.from_dlpack(x)` reads x directly)."""
    return np.asarray(x).__dlpack__()
