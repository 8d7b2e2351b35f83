"""What the host function of a CUDA module calls for its scalar work (unrolled values, a
loop's bookkeeping): the Numba runtime's and vecmath's names, in plain NumPy; and the
runtime's helpers over rows and columns, as kernel launches (`kernels.py`)."""
import numpy as np
from numba import cuda

from .kernels import (ADD, MAX, MIN, MUL, SET, argmax_rows, argmin_rows,  # noqa: F401
                      argsort_rows, batched_dot, cumulative, dot, scatter, sort_rows)
# (the Numba runtime's own Python versions, run here on the host)
from ..numba.alloc_runtime import clip_index, transposed  # noqa: F401
from ..numba.copy_runtime import put  # noqa: F401

radd = np.add
rmul = np.multiply
rmax = np.maximum
rmin = np.minimum
maximum, minimum = np.maximum, np.minimum
exp, expm1, exp2, log, log1p, log2, log10 = (np.exp, np.expm1, np.exp2, np.log, np.log1p,
                                             np.log2, np.log10)
sin, cos, tan, sinh, cosh, tanh = np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = (np.arcsin, np.arccos, np.arctan,
                                                     np.arcsinh, np.arccosh, np.arctanh)
arctan2, sqrt, abs, floor, ceil, rint = (np.arctan2, np.sqrt, np.abs,  # noqa: A001
                                         np.floor, np.ceil, np.rint)
logaddexp, pow = np.logaddexp, np.power  # noqa: A001


def logistic(x):
    return 1 / (1 + np.exp(-x))


def room_for(tape, k):
    """The tape itself when row k fits, else a copy twice as long (as the Numba runtime's),
    on the device when the tape is there."""
    if k < tape.shape[0]:
        return tape
    shape = (2 * tape.shape[0] + 1,) + tuple(tape.shape[1:])
    grown = cuda.device_array(shape, tape.dtype) if hasattr(tape, "copy_to_host") else \
        np.empty(shape, tape.dtype)
    if k:
        grown[:k] = tape[:k]
    return grown
