"""NumPy's functions about host memory, files and printing, as jax.numpy re-exports them: arrays
read from buffers, iterators, strings, files and DLPack producers come back as astjax arrays
(in their canonical dtypes), the rest is NumPy's own."""
import numpy as np

from ._creation import asarray

array_repr, array_str = np.array_repr, np.array_str
printoptions, set_printoptions, get_printoptions = (np.printoptions, np.set_printoptions,
                                                    np.get_printoptions)
save, savez = np.save, np.savez
object_, character, flexible = np.object_, np.character, np.flexible
ComplexWarning = np.exceptions.ComplexWarning


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return asarray(np.frombuffer(buffer, dtype, count, offset))


def fromiter(iterable, dtype, count=-1):
    return asarray(np.fromiter(iterable, dtype, count))


def fromstring(string, dtype=float, count=-1, *, sep):
    return asarray(np.fromstring(string, dtype, count, sep=sep))


def fromfile(*args, **kwargs):
    return asarray(np.fromfile(*args, **kwargs))


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from any DLPack producer (a NumPy, PyTorch or JAX array on the CPU)."""
    return asarray(np.from_dlpack(x, copy=copy))


def load(*args, **kwargs):
    """np.load; an array it reads is an astjax array (an .npz archive stays NumPy's)."""
    out = np.load(*args, **kwargs)
    return asarray(out) if isinstance(out, np.ndarray) else out
