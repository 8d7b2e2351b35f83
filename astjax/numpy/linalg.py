"""astjax.numpy.linalg: the norms that are compositions of primitives.

Vector norms: ord None/2, 1, inf, -inf, 0, any p. Matrix norms: None/'fro', 1, -1, inf, -inf.
Norms needing a decomposition (matrix ord 2/-2/'nuc'), det, inv and solve need primitives the table
does not have yet: they raise TransformError.
"""
import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._reductions import max, min, sum
from ._util import bind
from ..errors import TransformError


def norm(x, ord=None, axis=None, keepdims=False):
    x = _as_operand(x)
    if not u.is_inexact(x):  # NumPy computes norms of integers in float64
        x = bind("convert", x, dtype="float64")
    if axis is None and ord is None:
        return _two_norm(x, None, keepdims)
    if axis is None:
        axis = tuple(range(u.ndim(x)))
    axes = u.normalize_axes(axis, u.ndim(x)) if isinstance(axis, (tuple, list)) else \
        (u.normalize_axis(axis, u.ndim(x)),)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        rows, cols = (u.normalize_axis(a, u.ndim(x)) for a in axis)
        return _matrix_norm(x, ord, rows, cols, keepdims)
    raise u.ShapeError(f"norm over {len(axes)} axes is not defined", hint="use 1 or 2 axes")


def _two_norm(x, axis, keepdims):
    return bind("sqrt", sum(bind("mul", x, x), axis, keepdims=keepdims))


def _vector_norm(x, ord, axis, keepdims):
    a = bind("abs", x)
    if ord is None or ord == 2:
        return _two_norm(x, axis, keepdims)
    if ord == np.inf:
        return max(a, axis, keepdims=keepdims)
    if ord == -np.inf:
        return min(a, axis, keepdims=keepdims)
    if ord == 0:
        count = sum(bind("ne", x, 0), axis, keepdims=keepdims)
        return bind("convert", count, dtype=u.dtype_of(x).name)
    if ord == 1:
        return sum(a, axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise u.ShapeError(f"norm: ord={ord!r} is a matrix norm", hint="pass two axes")
    return bind("pow", sum(bind("pow", a, ord), axis, keepdims=keepdims), 1.0 / ord)


def _matrix_norm(x, ord, rows, cols, keepdims):
    if ord is None or ord == "fro":
        return _two_norm(x, (rows, cols), keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = sum(bind("abs", x), summed, keepdims=True)
        pick = max if ord in (1, np.inf) else min
        out = pick(sums, over, keepdims=True)
        if keepdims:
            return out
        s = u.shape(out)
        return bind("reshape", out, new_sizes=tuple(d for i, d in enumerate(s)
                                                      if i not in (rows, cols)))
    raise TransformError(f"norm: ord={ord!r} needs a singular value decomposition",
                         hint="no SVD primitive exists yet; use ord='fro', 1 or inf")


def _needs_decomposition(name):
    def missing(*args, **kwargs):
        raise TransformError(f"linalg.{name} needs a decomposition primitive that astjax does "
                             f"not have yet", hint="compute it outside the compiled function")
    missing.__name__ = name
    return missing


det, inv, solve, svd, eigh, qr, cholesky, slogdet, pinv, eig, lstsq = (
    _needs_decomposition(n) for n in
    ("det", "inv", "solve", "svd", "eigh", "qr", "cholesky", "slogdet", "pinv", "eig", "lstsq"))
