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
from ._bessel import i0  # noqa: F401
from ._bits import (bitwise_count, frexp, gcd, lcm, ldexp, modf, nextafter,  # noqa: F401
                    spacing)
from ._creation import (arange, array, asarray, astype, empty, empty_like, eye,  # noqa: F401
                        fromfunction, full, full_like, geomspace, identity, linspace, logspace,
                        ones, ones_like, tri, tril, triu, zeros, zeros_like)
from ._dtypes import *  # noqa: F401,F403
from ._dtypes import dtype  # noqa: F401
from . import _dtypes
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import abs, divmod, pow, round  # noqa: F401  (shadow builtins, like NumPy)
from ._elementwise import where as _elementwise_where
from ._function_base import (apply_along_axis, apply_over_axes, array_equiv,  # noqa: F401
                             corrcoef, cov, delete, ediff1d, einsum_path, gradient, insert,
                             isscalar, iterable, matvec, packbits, piecewise, sort_complex,
                             trapezoid, unpackbits, unwrap, vecmat, vectorize)
from ._host import (ComplexWarning, array_repr, array_str, character, flexible,  # noqa: F401
                    from_dlpack, frombuffer, fromfile, fromiter, fromstring, get_printoptions,
                    load, object_, printoptions, save, savez, set_printoptions)
from ._histograms import (bincount, digitize, histogram, histogram2d,  # noqa: F401
                          histogram_bin_edges, histogramdd, interp)
from ._index_tricks import c_, index_exp, mgrid, ogrid, r_, s_  # noqa: F401
from ._indexing import getitem  # noqa: F401
from ._joining import (append, array_split, block, column_stack, concat,  # noqa: F401
                       concatenate, dsplit, dstack, hsplit, hstack, meshgrid, split, stack,
                       unstack, vsplit, vstack)
from ._linalg_ops import (cross, diag, diagflat, diagonal, dot, einsum, inner, kron,  # noqa: F401
                          matmul, outer, tensordot, trace, vdot, vecdot)
from ._nanfunctions import (nanargmax, nanargmin, nancumprod, nancumsum, nanmax,  # noqa: F401
                            nanmean, nanmin, nanprod, nanstd, nansum, nanvar)
from ._padding import pad  # noqa: F401
from ._polynomial import (poly, polyadd, polyder, polydiv, polyfit, polyint,  # noqa: F401
                          polymul, polysub, polyval, roots, trim_zeros, vander)
from ._quantiles import (median, nanmedian, nanpercentile, nanquantile,  # noqa: F401
                         percentile, quantile)
from ._reductions import (all, amax, amin, any, argmax, argmin, average,  # noqa: F401
                          count_nonzero, cumprod, cumsum, cumulative_prod, cumulative_sum, diff,
                          max, mean, min, prod, ptp, std, sum, var)
from ._selection import (argpartition, argsort, choose, diag_indices,  # noqa: F401
                         diag_indices_from, fill_diagonal, indices, ix_, lexsort, mask_indices,
                         partition, place, put, put_along_axis, ravel_multi_index,
                         searchsorted, select, sort, take, take_along_axis, tril_indices,
                         tril_indices_from, triu_indices, triu_indices_from, unravel_index)
from ._setops import (argwhere, compress, extract, flatnonzero, intersect1d, isin,  # noqa: F401
                      nonzero, setdiff1d, setxor1d, union1d, unique, unique_all, unique_counts,
                      unique_inverse, unique_values)
from ._shape import (atleast_1d, atleast_2d, atleast_3d, broadcast_arrays,  # noqa: F401
                     broadcast_shapes, broadcast_to, expand_dims, flip, fliplr, flipud,
                     matrix_transpose, moveaxis, ndim, permute_dims, ravel, repeat, reshape,
                     resize, roll, rollaxis, rot90, shape, size, squeeze, swapaxes, tile,
                     transpose)
from ._windows import bartlett, blackman, hamming, hanning, kaiser  # noqa: F401

bitwise_left_shift, bitwise_right_shift = left_shift, right_shift  # noqa: F405
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None
errstate = _np.errstate  # (NumPy code's `with np.errstate(...)`: entered at compile time)


def where(condition, x=None, y=None, /, **size_and_fill_value):
    """x where condition holds, else y; with the condition alone, nonzero(condition, size=,
    fill_value=)."""
    if x is None and y is None:
        return nonzero(condition, **size_and_fill_value)
    return _elementwise_where(condition, x, y)


def copy(a):
    return array(a, copy=True)


class _ArrayType(type):
    def __instancecheck__(cls, obj):
        from ..core.ir import Var
        return isinstance(obj, (_np.ndarray, Var))


class ndarray(metaclass=_ArrayType):
    """For isinstance checks: NumPy arrays (eager) and abstract arrays (compiled) are arrays."""


Array = ndarray


def __getattr__(name: str):
    """jnp.bfloat16, made when first asked for (see _dtypes._narrow_floats)."""
    if name == "bfloat16":
        return _dtypes.bfloat16
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
