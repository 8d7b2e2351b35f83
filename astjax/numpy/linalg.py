"""astjax.numpy.linalg: NumPy's linear algebra with JAX's conventions, on the decomposition
primitives (Cholesky, LU, QR, eigh, SVD, triangular solves).

Everything maps over leading batch axes, differentiates (through the primitives' derivative
rules) and batches. As in JAX, failures are values, not exceptions: the factor of a matrix
that is not positive definite is NaN, a singular system gives inf/nan.
"""
from collections import namedtuple

import numpy as np

from types import SimpleNamespace

from . import _creation, _decompositions, _elementwise, _linalg_ops, _reductions, _selection, _shape
from . import _util as u
from ._creation import _as_operand
from ._decompositions import float_matrix, mT
from ._decompositions import cholesky as _cholesky, eigh as _eigh, lu as _lu, qr as _qr, \
    svd as _svd, triangular_solve
from ._linalg_ops import (cross as _cross, matmul, outer as _outer, tensordot,  # noqa: F401
                          vecdot)
from ._reductions import max, min, sum
from ._util import bind

_IN = "promise_in_bounds"  # (indices in range by construction: no masking)

# the astjax.numpy names this module uses (importing the package itself would be a cycle)
jnp = SimpleNamespace(
    abs=_elementwise.abs, sign=_elementwise.sign, log=_elementwise.log,
    multiply=_elementwise.multiply, divide=_elementwise.divide, where=_elementwise.where,
    arange=_creation.arange, asarray=_creation.asarray, eye=_creation.eye,
    any=_reductions.any, prod=_reductions.prod, sum=_reductions.sum,
    count_nonzero=_reductions.count_nonzero,
    argsort=_selection.argsort, take_along_axis=_selection.take_along_axis,
    broadcast_to=_shape.broadcast_to, expand_dims=_shape.expand_dims, ravel=_shape.ravel,
    reshape=_shape.reshape, transpose=_shape.transpose, moveaxis=_shape.moveaxis,
    diagonal=_linalg_ops.diagonal, trace=_linalg_ops.trace)

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


# ---------------------------------------------------------------- decompositions
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    low = _cholesky(a, symmetrize_input=symmetrize_input)
    return mT(low) if upper else low


def qr(a, mode: str = "reduced"):
    if mode not in ("reduced", "complete", "r"):
        raise u.ShapeError(f"qr: mode={mode!r} is not supported",
                           hint="use 'reduced', 'complete' or 'r'")
    q, r = _qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO=None, symmetrize_input: bool = True):
    v, w = _eigh(a, lower=UPLO in (None, "L"), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    if hermitian:
        return _hermitian_svd(a, full_matrices, compute_uv)
    if not compute_uv:
        return _svd(a, full_matrices=full_matrices, compute_uv=False)
    return SVDResult(*_svd(a, full_matrices=full_matrices))


def _hermitian_svd(a, full_matrices, compute_uv):
    """From eigh, as JAX does: s = |w| sorted descending, signs folded into Vh."""
    w, v = eigh(a)
    s = jnp.abs(w)
    order = jnp.argsort(-s, axis=-1)
    s = jnp.take_along_axis(s, order, axis=-1, mode=_IN)
    if not compute_uv:
        return s
    index = jnp.broadcast_to(jnp.expand_dims(order, -2), u.shape(v))
    left = jnp.take_along_axis(v, index, axis=-1, mode=_IN)
    signs = jnp.take_along_axis(jnp.sign(w), order, axis=-1, mode=_IN)
    right = mT(jnp.multiply(left, jnp.expand_dims(signs, -2)))
    return SVDResult(left, s, right)


def svdvals(x, /):
    return _svd(x, compute_uv=False)


EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])


def eig(a):
    """(w, v): the complex eigenvalues and unit-norm right eigenvectors (columns) of a general
    square matrix (LAPACK's geev; its derivative is the eigenvalues', as JAX)."""
    w, v = _decompositions.eig(a)
    return EigResult(w, v)


def eigvals(a):
    return _decompositions.eig(a, compute_right_eigenvectors=False)[0]


# ---------------------------------------------------------------- determinants
def _lu_diagonal(a):
    lu, pivots, _ = _lu(a)
    n = u.shape(lu)[-1]
    swaps = jnp.count_nonzero(bind("ne", pivots, jnp.arange(n, dtype=np.int32)), axis=-1)
    return jnp.diagonal(lu, axis1=-2, axis2=-1), swaps


def _square(a, name):
    a = float_matrix(a, name)
    if u.shape(a)[-1] != u.shape(a)[-2]:
        raise u.ShapeError(f"linalg.{name} needs square matrices, got shape {u.shape(a)}")
    return a


def det(a):
    a = _square(a, "det")
    diag, swaps = _lu_diagonal(a)
    sign = jnp.asarray(jnp.where(swaps % 2 == 1, -1.0, 1.0), dtype=u.dtype_of(a))
    return sign * jnp.prod(diag, axis=-1)


def slogdet(a, *, method=None):
    a = _square(a, "slogdet")
    diag, swaps = _lu_diagonal(a)
    is_zero = jnp.any(diag == 0, axis=-1)
    parity = swaps + jnp.count_nonzero(diag < 0, axis=-1)
    sign = jnp.asarray(jnp.where(is_zero, 0.0, jnp.where(parity % 2 == 1, -1.0, 1.0)),
                       dtype=u.dtype_of(a))
    logdet = jnp.where(is_zero, -np.inf, sum(jnp.log(jnp.abs(diag)), axis=-1))
    return SlogdetResult(sign, jnp.asarray(logdet, dtype=u.dtype_of(a)))


# ---------------------------------------------------------------- solving
def solve(a, b):
    """x with a @ x = b; b is a vector when it has one dimension (NumPy 2's rule)."""
    a = _square(a, "solve")
    b, vector = matrix_rhs(b)
    a, b = promoted(a, b)
    batch = tuple(np.broadcast_shapes(u.shape(a)[:-2], u.shape(b)[:-2]))
    a = jnp.broadcast_to(a, batch + u.shape(a)[-2:])
    b = jnp.broadcast_to(b, batch + u.shape(b)[-2:])
    lu, _, perm = _lu(a)
    x = lu_solve_permuted(lu, perm, b)
    return x[..., 0] if vector else x


def matrix_rhs(b):
    """(b as a matrix, whether it was a vector): a right-hand side with one dimension is a
    vector (NumPy 2's rule) and gets a trailing axis."""
    b = _as_operand(b)
    vector = u.ndim(b) == 1
    return (jnp.expand_dims(b, -1) if vector else b), vector


def promoted(a, b):
    """a and b in their common dtype."""
    dtype = np.result_type(u.dtype_of(a), u.dtype_of(b))
    return a.astype(dtype), b.astype(dtype)


def lu_solve_permuted(lu, perm, b, transposed: bool = False):
    """x with A x = b (or A^T x = b) where P A = L U, given LU's packed factors."""
    if transposed:  # A^T = U^T L^T P: solve U^T, then L^T, then undo P
        y = triangular_solve(lu, b, left_side=True, lower=False, transpose_a=True)
        z = triangular_solve(lu, y, left_side=True, lower=True, transpose_a=True,
                             unit_diagonal=True)
        return jnp.take_along_axis(z, _row_index(jnp.argsort(perm, axis=-1), z), axis=-2,
                                   mode=_IN)
    pb = jnp.take_along_axis(b, _row_index(perm, b), axis=-2, mode=_IN)
    y = triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu, y, left_side=True, lower=False)


def _row_index(perm, like):
    return jnp.broadcast_to(jnp.expand_dims(perm, -1), u.shape(like)).astype(np.int64)


def inv(a):
    a = _square(a, "inv")
    n = u.shape(a)[-1]
    return solve(a, jnp.broadcast_to(jnp.eye(n, dtype=u.dtype_of(a)), u.shape(a)))


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    a = float_matrix(a, "pinv")
    rtol = rcond if rtol is None else rtol
    if rtol is None:
        rtol = 10.0 * _largest_dim(a) * np.finfo(u.dtype_of(a)).eps
    left, s, right = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = jnp.expand_dims(jnp.asarray(rtol, dtype=u.dtype_of(s)), -1) * s[..., 0:1]
    s = jnp.where(s > cutoff, s, np.inf).astype(u.dtype_of(left))
    return matmul(mT(right), jnp.divide(mT(left), jnp.expand_dims(s, -1)))


def _largest_dim(a) -> int:
    """max(m, n), for a default tolerance (a symbolic size is pinned to the call's)."""
    m, n = u.shape(a)[-2:]
    return int(m) if int(m) >= int(n) else int(n)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """(x, residuals, rank, s) minimising |a x - b|, through the SVD as JAX computes it."""
    b, vector = matrix_rhs(b)
    a, b = promoted(float_matrix(a, "lstsq"), b)
    dtype = u.dtype_of(a)
    m, n = u.shape(a)
    if rcond is None:
        rcond = np.finfo(dtype).eps * _largest_dim(a)
    left, s, right = _svd(a, full_matrices=False)
    mask = s >= jnp.asarray(rcond, dtype=u.dtype_of(s)) * s[0]
    rank = jnp.sum(mask)
    safe = jnp.where(mask, s, 1).astype(dtype)
    s_inv = jnp.expand_dims(jnp.where(mask, 1 / safe, 0), -1)
    x = matmul(mT(right), s_inv * matmul(mT(left), b))
    resid = sum((b - matmul(a, x)) ** 2, axis=0)
    if vector:
        x, resid = x[:, 0], resid
    return x, resid, rank, s


def tensorsolve(a, b, axes=None):
    a, b = _as_operand(a), _as_operand(b)
    if axes is not None:
        rest = [i for i in range(u.ndim(a)) if i not in [x % u.ndim(a) for x in axes]]
        a = jnp.transpose(a, rest + [x % u.ndim(a) for x in axes])
    out_shape = u.shape(a)[u.ndim(b):]
    size = int(np.prod(out_shape))
    x = solve(jnp.reshape(a, (-1, size)), jnp.reshape(b, (-1,)))
    return jnp.reshape(x, out_shape)


def tensorinv(a, ind: int = 2):
    a = _as_operand(a)
    head, tail = u.shape(a)[:ind], u.shape(a)[ind:]
    flat = jnp.reshape(a, (int(np.prod(head)), -1))
    return jnp.reshape(inv(flat), tail + head)


# ---------------------------------------------------------------- ranks, powers, norms
def matrix_rank(M, rtol=None, *, tol=None):
    M = _as_operand(M)
    if u.ndim(M) < 2:
        return jnp.any(M != 0).astype(np.int32)
    s = svdvals(float_matrix(M, "matrix_rank"))
    limit = tol if tol is not None else rtol
    if limit is None:
        limit = max(s, axis=-1) * _largest_dim(M) * np.finfo(u.dtype_of(s)).eps
    return jnp.sum(s > jnp.expand_dims(jnp.asarray(limit), -1), axis=-1)


def matrix_power(a, n: int):
    a = _as_operand(a)
    n = int(n)
    if u.shape(a)[-1] != u.shape(a)[-2]:
        raise u.ShapeError(f"matrix_power needs square matrices, got shape {u.shape(a)}")
    if n == 0:
        return jnp.broadcast_to(jnp.eye(u.shape(a)[-1], dtype=u.dtype_of(a)), u.shape(a))
    if n < 0:
        a, n = inv(a), -n
    result, power = None, a
    while n:  # binary powering, unrolled: n is static
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def multi_dot(arrays, *, precision=None):
    arrays = [_as_operand(x) for x in arrays]
    if len(arrays) < 2:
        raise u.ShapeError("multi_dot needs at least two arrays")
    out = arrays[0]
    for x in arrays[1:]:  # matmul drops a leading or trailing vector's axis, as NumPy does
        out = matmul(out, x)
    return out


def cond(x, p=None):
    x = float_matrix(x, "cond")
    if p in (None, 2, -2):
        s = svdvals(x)
        big, small = s[..., 0], s[..., -1]
        return big / small if p in (None, 2) else small / big
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


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


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    x = _as_operand(x)
    if axis is None:
        out = _vector_norm(jnp.ravel(x), ord, 0, False)
        return jnp.reshape(out, (1,) * u.ndim(x)) if keepdims else out
    if isinstance(axis, (tuple, list)) and len(axis) > 1:
        axes = u.normalize_axes(axis, u.ndim(x))
        rest = [i for i in range(u.ndim(x)) if i not in axes]
        moved = jnp.reshape(jnp.transpose(x, rest + list(axes)),
                            tuple(u.shape(x)[i] for i in rest) + (-1,))
        out = _vector_norm(moved, ord, len(rest), False)
        if keepdims:
            out = jnp.expand_dims(out, tuple(axes))
        return out
    return norm(x, ord, axis if not isinstance(axis, (tuple, list)) else axis[0], keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord, (-2, -1), keepdims)


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
        return _drop(pick(sums, over, keepdims=True), rows, cols, keepdims)
    if ord in (2, -2, "nuc"):
        s = svdvals(jnp.moveaxis(x, (rows, cols), (-2, -1)))
        out = max(s, -1) if ord == 2 else (min(s, -1) if ord == -2 else sum(s, -1))
        return jnp.expand_dims(out, (rows, cols)) if keepdims else out
    raise u.ShapeError(f"norm: ord={ord!r} is not a matrix norm",
                       hint="use None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf")


def _drop(out, rows, cols, keepdims):
    if keepdims:
        return out
    s = u.shape(out)
    return bind("reshape", out, new_sizes=tuple(d for i, d in enumerate(s) if i not in (rows, cols)))


# ---------------------------------------------------------------- the Array API's helpers
def matrix_transpose(x, /):
    x = _as_operand(x)
    if u.ndim(x) < 2:
        raise u.ShapeError(f"matrix_transpose needs at least 2 dimensions, got {u.shape(x)}")
    return mT(x)


def outer(x1, x2, /):
    if u.ndim(_as_operand(x1)) != 1 or u.ndim(_as_operand(x2)) != 1:
        raise u.ShapeError("linalg.outer needs two vectors")
    return _outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    return _cross(x1, x2, axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    return jnp.trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    return jnp.diagonal(x, offset, axis1=-2, axis2=-1)
