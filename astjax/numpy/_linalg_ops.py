"""Products and diagonals: matmul, dot, vdot, inner, outer, tensordot, einsum, kron, diag,
diagonal, trace. Every product is one `dot_general` (or `einsum`) plus the reshapes around it."""
import numpy as np

from . import _util as u
from ._creation import _as_operand
from ._shape import _slice_axis, broadcast_to, moveaxis, ravel, reshape
from ._util import bind


# Every product takes JAX's `precision` (astjax computes at the operands' own precision on the
# CPU, whichever is asked) and `preferred_element_type` (the result's dtype).
def _typed(out, preferred_element_type):
    if preferred_element_type is None or u.dtype(preferred_element_type) == u.dtype_of(out):
        return out
    return bind("convert", out, dtype=u.dtype(preferred_element_type).name)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    return _typed(_matmul(x1, x2), preferred_element_type)


def _matmul(x1, x2):
    a, b = _as_operand(x1), _as_operand(x2)
    if u.ndim(a) == 0 or u.ndim(b) == 0:
        raise u.ShapeError("matmul: operands must not be scalars", hint="use * for scaling")
    vector_a, vector_b = u.ndim(a) == 1, u.ndim(b) == 1
    if vector_a:
        a = reshape(a, (1,) + u.shape(a))
    if vector_b:
        b = reshape(b, u.shape(b) + (1,))
    batch = tuple(np.broadcast_shapes(u.shape(a)[:-2], u.shape(b)[:-2]))
    a = broadcast_to(a, batch + u.shape(a)[-2:])
    b = broadcast_to(b, batch + u.shape(b)[-2:])
    _check_contracted(u.shape(a)[-1], u.shape(b)[-2], "matmul", a, b)
    nb = len(batch)
    out = bind("dot_general", a, b,
               dimension_numbers=(((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))
    out_shape = batch + (() if vector_a else u.shape(a)[-2:-1]) + (() if vector_b else
                                                                  u.shape(b)[-1:])
    return reshape(out, out_shape)


def _check_contracted(n, m, name, a, b):
    if n != m:
        raise u.ShapeError(f"{name}: shapes {u.shape(a)} and {u.shape(b)} do not line up "
                           f"({n} != {m})", hint="the last axis of the first operand must match "
                                                 "the contracted axis of the second")


def dot(a, b, *, precision=None, preferred_element_type=None):
    return _typed(_dot(a, b), preferred_element_type)


def _dot(a, b):
    a, b = _as_operand(a), _as_operand(b)
    if u.ndim(a) == 0 or u.ndim(b) == 0:
        return bind("mul", a, b)
    b_axis = 0 if u.ndim(b) == 1 else u.ndim(b) - 2
    _check_contracted(u.shape(a)[-1], u.shape(b)[b_axis], "dot", a, b)
    return bind("dot_general", a, b, dimension_numbers=(((u.ndim(a) - 1,), (b_axis,)), ((), ())))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    return dot(ravel(a), ravel(b), preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    product = bind("mul", _as_operand(x1), _as_operand(x2))
    out = bind("reduce_sum", product, axes=(u.normalize_axis(axis, max(u.ndim(x1), u.ndim(x2))),))
    return _typed(out, preferred_element_type or u.dtype_of(product))  # (ints do not widen)


def inner(a, b, *, precision=None, preferred_element_type=None):
    return _typed(_inner(a, b), preferred_element_type)


def _inner(a, b):
    a, b = _as_operand(a), _as_operand(b)
    if u.ndim(a) == 0 or u.ndim(b) == 0:
        return bind("mul", a, b)
    _check_contracted(u.shape(a)[-1], u.shape(b)[-1], "inner", a, b)
    return bind("dot_general", a, b,
                dimension_numbers=(((u.ndim(a) - 1,), (u.ndim(b) - 1,)), ((), ())))


def outer(a, b):
    a, b = ravel(a), ravel(b)
    return bind("mul", reshape(a, (-1, 1)), reshape(b, (1, -1)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    return _typed(_tensordot(a, b, axes), preferred_element_type)


def _tensordot(a, b, axes):
    a, b = _as_operand(a), _as_operand(b)
    if isinstance(axes, int):
        a_axes = tuple(range(u.ndim(a) - axes, u.ndim(a)))
        b_axes = tuple(range(axes))
    else:
        a_axes, b_axes = (tuple(x) if isinstance(x, (list, tuple)) else (x,) for x in axes)
    a_axes = tuple(u.normalize_axis(i, u.ndim(a)) for i in a_axes)
    b_axes = tuple(u.normalize_axis(i, u.ndim(b)) for i in b_axes)
    for i, j in zip(a_axes, b_axes):
        _check_contracted(u.shape(a)[i], u.shape(b)[j], "tensordot", a, b)
    return bind("dot_general", a, b, dimension_numbers=((a_axes, b_axes), ((), ())))


def einsum(subscripts, *operands, optimize=None, precision=None, preferred_element_type=None,
           _dot_general=None, out_sharding=None):
    if not isinstance(subscripts, str):
        raise u.DtypeError("einsum: only the subscripts-string form is supported",
                           hint="write jnp.einsum('ij,jk->ik', a, b)")
    operands = [_as_operand(x) for x in operands]
    return _typed(bind("einsum", *operands, subscripts=subscripts.replace(" ", "")),
                  preferred_element_type)


def kron(a, b):
    a, b = _as_operand(a), _as_operand(b)
    rank = max(u.ndim(a), u.ndim(b))
    sa = (1,) * (rank - u.ndim(a)) + u.shape(a)
    sb = (1,) * (rank - u.ndim(b)) + u.shape(b)
    a_wide = reshape(a, tuple(d for s in sa for d in (s, 1)))
    b_wide = reshape(b, tuple(d for s in sb for d in (1, s)))
    return reshape(bind("mul", a_wide, b_wide), tuple(x * y for x, y in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """3-vectors only (the 2-vector form returns a scalar in NumPy)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(_as_operand(a), axisa, -1), moveaxis(_as_operand(b), axisb, -1)
    if u.shape(a)[-1] != 3 or u.shape(b)[-1] != 3:
        raise u.ShapeError("cross: only 3-vectors are supported")

    def part(x, i):
        return reshape(_slice_axis(x, u.ndim(x) - 1, i, i + 1), u.shape(x)[:-1])

    def component(i, j):
        return bind("sub", bind("mul", part(a, i), part(b, j)), bind("mul", part(a, j), part(b, i)))

    from ._joining import stack
    return moveaxis(stack([component(1, 2), component(2, 0), component(0, 1)], -1), -1, axisc)


# ---------------------------------------------------------------- diagonals
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal moves to the last axis, as in NumPy: a strided slice of the flattened pair."""
    a = _as_operand(a)
    rank = u.ndim(a)
    if rank < 2:
        raise u.ShapeError("diagonal needs at least 2 dimensions")
    a = moveaxis(a, (u.normalize_axis(axis1, rank), u.normalize_axis(axis2, rank)), (-2, -1))
    *lead, n, m = u.shape(a)
    k = int(offset)
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    flat = reshape(a, tuple(lead) + (n * m,))
    start = k if k >= 0 else -k * m
    if length == 0:
        return _slice_axis(flat, len(lead), 0, 0)
    return _slice_axis(flat, len(lead), start, start + (length - 1) * (m + 1) + 1, m + 1)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    from ._reductions import sum
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(v, k=0):
    v = _as_operand(v)
    if u.ndim(v) == 2:
        return diagonal(v, k)
    if u.ndim(v) != 1:
        raise u.ShapeError(f"diag needs a 1-d or 2-d array, got shape {u.shape(v)}")
    return _diag_matrix(v, int(k))


def _diag_matrix(v, k):
    """out[i, i + k] = v[i]: v laid along the rows (or columns for k < 0), kept on the diagonal."""
    n = u.shape(v)[0] + abs(k)
    zero = u.zero(u.dtype_of(v))
    padded = bind("pad", v, zero, config=((0, abs(k), 0),))
    along = 0 if k >= 0 else 1
    spread = bind("broadcast_in_dim", padded, shape=(n, n), broadcast_dimensions=(along,))
    rows = bind("iota", dtype="int64", shape=(n, n), dimension=0)
    cols = bind("iota", dtype="int64", shape=(n, n), dimension=1)
    on_diagonal = bind("eq", bind("add", rows, k) if k else rows, cols)
    return bind("select", on_diagonal, spread, zero)


def diagflat(v, k=0):
    return diag(ravel(v), k)
