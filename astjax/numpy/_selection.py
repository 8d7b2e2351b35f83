"""Gathers, sorting and searching: take, take_along_axis, sort, argsort, searchsorted, select,
and the data-dependent-shape functions (nonzero, argwhere...), which need concrete input."""
import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray
from ._shape import ravel, reshape
from ._util import bind


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Out-of-range indices are clamped (JAX's default is the same for gathers)."""
    a, indices = _as_operand(a), _as_operand(indices)
    if axis is None:
        a, axis = ravel(a), 0
    return bind("take", a, indices, axis=u.normalize_axis(axis, u.ndim(a)))


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    arr, indices = _as_operand(arr), _as_operand(indices)
    if axis is None:
        arr, indices, axis = ravel(arr), ravel(indices), 0
    if u.ndim(arr) != u.ndim(indices):
        raise u.ShapeError(f"take_along_axis: indices of rank {u.ndim(indices)} for an array of "
                           f"rank {u.ndim(arr)}", hint="the ranks must match (use x[..., None])")
    return bind("take_along_axis", arr, indices, axis=u.normalize_axis(axis, u.ndim(arr)))


def sort(a, axis=-1, kind=None, order=None, *, stable=True, descending=False):
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    out = bind("sort", a, dimension=axis)
    return bind("rev", out, dimensions=(axis,)) if descending else out


def argsort(a, axis=-1, kind=None, order=None, *, stable=True, descending=False):
    a = _as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    if descending:  # stable descending order: sort the reversed array, map positions back
        flipped = bind("rev", a, dimensions=(axis,))
        order_ = bind("argsort", flipped, dimension=axis, index_dtype="int64")
        return bind("sub", u.shape(a)[axis] - 1, bind("rev", order_, dimensions=(axis,)))
    return bind("argsort", a, dimension=axis, index_dtype="int64")


def searchsorted(a, v, side="left", sorter=None):
    """Counts, for each v, the elements of a before it: O(len(a) * len(v)), no data-dependent
    control flow."""
    a, v = _as_operand(a), _as_operand(v)
    if sorter is not None:
        a = take(a, sorter)
    compare = "lt" if side == "left" else "le"
    before = bind(compare, a, reshape(v, u.shape(v) + (1,)))
    return bind("reduce_sum", before, axes=(u.ndim(before) - 1,))


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, else default (NumPy's select)."""
    if len(condlist) != len(choicelist):
        raise u.ShapeError("select: condlist and choicelist need the same length")
    out = _as_operand(default)
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = bind("select", _as_operand(cond), _as_operand(choice), out)
    return out


def unravel_index(indices, shape):
    indices = _as_operand(indices)
    out = []
    for size in reversed(u.static_shape(shape)):
        out.append(bind("rem", indices, size))
        indices = bind("floor_divide", indices, size)
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    flat, stride = 0, 1
    for index, size in reversed(list(zip(multi_index, u.static_shape(dims)))):
        term = bind("mul", _as_operand(index), stride)
        flat = term if isinstance(flat, int) else bind("add", flat, term)
        stride *= size
    return flat


# ---------------------------------------------------------------- data-dependent shapes
def _concrete(a, name):
    a = _as_operand(a)
    if u.is_abstract(a):
        raise u.concretization(
            f"{name}() has a result whose shape depends on the values of its input",
            hint="use jnp.where(cond, x, y) to keep shapes static, or call it outside jit")
    return np.asarray(a)


def nonzero(a, *, size=None, fill_value=None):
    return tuple(asarray(i) for i in np.nonzero(_concrete(a, "nonzero")))


def flatnonzero(a):
    return asarray(np.flatnonzero(_concrete(a, "flatnonzero")))


def argwhere(a):
    return asarray(np.argwhere(_concrete(a, "argwhere")))


def unique(ar, **kwargs):
    return asarray(np.unique(_concrete(ar, "unique"), **kwargs))


# ---------------------------------------------------------------- static index sets
def tril_indices(n, k=0, m=None):
    return tuple(asarray(i) for i in np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    return tuple(asarray(i) for i in np.triu_indices(n, k, m))


def diag_indices(n, ndim=2):
    return tuple(asarray(i) for i in np.diag_indices(n, ndim))


def indices(dimensions, dtype=None):
    dimensions = u.static_shape(dimensions)
    dtype = u.dtype(np.int64 if dtype is None else dtype).name
    grids = [bind("iota", dtype=dtype, shape=dimensions, dimension=i)
             for i in range(len(dimensions))]
    from ._joining import stack
    return stack(grids) if grids else asarray(np.zeros((0,), dtype))

