"""astjax.numpy: the NumPy API on top of the primitive table.

Each function is written once with `bind`, so it runs eagerly on NumPy arrays and Python scalars
(returning NumPy arrays) and, during compilation, records core-form equations on abstract `Var`s.
Results and dtypes follow NumPy 2 (NEP 50), not JAX's float32 defaults: `zeros(3)` is float64,
`mean` of ints is float64, float32 inputs stay float32.

Eager results are astjax arrays (`astjax.core.array.Array`, a NumPy ndarray with JAX's `.at`
updates and `block_until_ready`), so `x.at[i].set(v)` works eagerly as inside compiled functions.
"""
import numpy as _np

from . import _methods  # noqa: F401  (installs operators and methods of abstract arrays)
from . import fft, linalg  # noqa: F401
from ._at import at  # noqa: F401
from ._convolve import convolve, correlate  # noqa: F401
from ._creation import (arange, array, asarray, astype, empty, empty_like, eye, full,  # noqa: F401
                        full_like, identity, linspace, logspace, ones, ones_like, tri, tril,
                        triu, zeros, zeros_like)
from ._dtypes import *  # noqa: F401,F403
from ._dtypes import dtype  # noqa: F401
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import abs, divmod, pow, round  # noqa: F401  (shadow builtins, like NumPy)
from ._indexing import getitem  # noqa: F401
from ._joining import (append, array_split, column_stack, concatenate, dstack, hsplit,  # noqa: F401
                       hstack, meshgrid, split, stack, vsplit, vstack)
from ._linalg_ops import (cross, diag, diagflat, diagonal, dot, einsum, inner, kron,  # noqa: F401
                          matmul, outer, tensordot, trace, vdot, vecdot)
from ._reductions import (all, amax, amin, any, argmax, argmin, average,  # noqa: F401
                          count_nonzero, cumprod, cumsum, cumulative_prod, cumulative_sum, diff, max, mean,
                          median, min, percentile, prod, ptp, quantile, std, sum, var)
from ._selection import (argsort, argwhere, diag_indices, flatnonzero, indices,  # noqa: F401
                         nonzero, ravel_multi_index, searchsorted, select, sort, take,
                         take_along_axis, tril_indices, triu_indices, unique, unravel_index)
from ._shape import (atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,  # noqa: F401
                     broadcast_shapes, broadcast_to, expand_dims, flip, fliplr, flipud,
                     matrix_transpose, moveaxis, ndim, ravel, repeat, reshape, roll, shape, size,
                     squeeze, swapaxes, tile, transpose)

pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None


def copy(a):
    return array(a, copy=True)


def pad(array, pad_width, mode="constant", constant_values=0):
    """Constant padding only (other modes are compositions not written yet)."""
    from ._util import ShapeError, bind, ndim as _ndim
    if mode != "constant":
        raise ShapeError(f"pad: mode={mode!r} is not supported", hint="use mode='constant'")
    array = asarray(array) if isinstance(array, (list, tuple)) else array
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (_ndim(array), 2))
    fill = _np.asarray(constant_values, dtype(array.dtype if hasattr(array, "dtype")
                                              else _np.result_type(array)))
    return bind("pad", array, fill, config=tuple((int(lo), int(hi), 0) for lo, hi in widths))


class _ArrayType(type):
    def __instancecheck__(cls, obj):
        from ..core.ir import Var
        return isinstance(obj, (_np.ndarray, Var))


class ndarray(metaclass=_ArrayType):
    """For isinstance checks: NumPy arrays (eager) and abstract arrays (compiled) are arrays."""


Array = ndarray
