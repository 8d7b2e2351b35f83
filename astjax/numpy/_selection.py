"""Gathers, sorting and searching: take, take_along_axis, sort, argsort, searchsorted, select,
and static index sets (the data-dependent ones, nonzero & co., are in `_setops`)."""
import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray
from ._joining import concatenate
from ._shape import flip, moveaxis, ravel, reshape
from ._util import bind

_IN = "promise_in_bounds"  # (indices in range by construction: no masking)


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """JAX's modes: "fill" (the default: an index out of range, after one wrap of a negative
    one, reads `fill_value`, NaN for floats), "clip", "wrap" and "promise_in_bounds"."""
    a, indices = _as_operand(a), _as_operand(indices)
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    if mode in (None, "fill"):
        from ._at import _get_or_fill
        return _get_or_fill(a, (slice(None),) * axis + (indices,), fill_value)
    return bind("take", a, _in_range(indices, u.shape(a)[axis], mode, "take"), axis=axis)


def _in_range(indices, n, mode: str, name: str):
    """Indices brought into [0, n) as `mode` says (clip takes a negative index as 0)."""
    if mode == "clip":
        return bind("clamp", 0, indices, max(n - 1, 0))
    if mode == "wrap":
        return bind("rem", bind("add", bind("rem", indices, n), n), n)
    if mode == "promise_in_bounds":
        return indices
    raise u.ShapeError(f"{name}: unknown mode {mode!r}",
                       hint="use 'fill', 'clip', 'wrap' or 'promise_in_bounds'")


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """JAX's modes, as `take` (here "clip" wraps a negative index once first, as JAX does)."""
    arr, indices = _as_operand(arr), _as_operand(indices)
    if axis is None:
        arr, indices, axis = ravel(arr), ravel(indices), 0
    if u.ndim(arr) != u.ndim(indices):
        raise u.ShapeError(f"take_along_axis: indices of rank {u.ndim(indices)} for an array of "
                           f"rank {u.ndim(arr)}", hint="the ranks must match (use x[..., None])")
    axis = u.normalize_axis(axis, u.ndim(arr))
    if mode == "promise_in_bounds":
        return bind("take_along_axis", arr, indices, axis=axis)
    n = u.shape(arr)[axis]
    if mode == "wrap":
        return bind("take_along_axis", arr, _in_range(indices, n, mode, "take_along_axis"),
                    axis=axis)
    once = bind("select", bind("lt", indices, 0), bind("add", indices, n), indices)
    if mode == "clip":
        return bind("take_along_axis", arr, _in_range(once, n, mode, "take_along_axis"),
                    axis=axis)
    if mode not in (None, "fill"):
        _in_range(indices, n, mode, "take_along_axis")
    from ._at import filled_outside
    read = bind("take_along_axis", arr, bind("clamp", 0, once, max(n - 1, 0)), axis=axis)
    inside = bind("bitwise_and", bind("ge", once, 0), bind("lt", once, n))
    return filled_outside(inside, read, arr, fill_value)


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
    count = bind("reduce_sum", before, axes=(u.ndim(before) - 1,))
    return bind("convert", count, dtype=index_dtype(u.shape(a)[0]))


def index_dtype(length) -> str:
    """JAX's dtype for indices into an axis of `length` (searchsorted, argpartition): int32
    where they fit, whatever jax_enable_x64 says."""
    return "int32" if not isinstance(length, int) or length <= np.iinfo(np.int32).max \
        else "int64"


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



def tril_indices_from(arr, k=0):
    s = u.shape(_as_operand(arr))
    if len(s) != 2:
        raise u.ShapeError("tril_indices_from: arr must be 2-D")
    return tril_indices(s[0], k, s[1])


def triu_indices_from(arr, k=0):
    s = u.shape(_as_operand(arr))
    if len(s) != 2:
        raise u.ShapeError("triu_indices_from: arr must be 2-D")
    return triu_indices(s[0], k, s[1])


def diag_indices_from(arr):
    s = u.shape(_as_operand(arr))
    if len(s) < 2 or len(set(s)) != 1:
        raise u.ShapeError("diag_indices_from: arr must have at least 2 axes of equal length")
    return diag_indices(s[0], len(s))


def mask_indices(n, mask_func, k=0, *, size=None):
    """The indices where mask_func(ones((n, n)), k) is non-zero (mask_func is static)."""
    mask = mask_func(np.ones((n, n), np.int64), k)
    if u.is_abstract(mask):
        raise u.concretization("mask_indices: mask_func must give a concrete mask")
    return tuple(asarray(i) for i in np.nonzero(np.asarray(mask)))


def ix_(*args):
    """Open-mesh index arrays: the i-th 1-D sequence shaped to vary along axis i only."""
    out = []
    for i, a in enumerate(args):
        a = _as_operand(a)
        if u.ndim(a) != 1:
            raise u.ShapeError("ix_: every argument must be 1-D")
        if u.kind(a) == "b":
            raise u.DtypeError("ix_: boolean arguments are not supported",
                               hint="pass jnp.nonzero(mask)[0]")
        out.append(reshape(a, (1,) * i + (-1,) + (1,) * (len(args) - i - 1)))
    return tuple(out)


def lexsort(keys, axis=-1):
    """The order that sorts by the last key, then the one before it, and so on (stable)."""
    keys = [_as_operand(k) for k in keys]
    if not keys:
        raise u.ShapeError("lexsort: needs at least one key")
    axis = u.normalize_axis(axis, u.ndim(keys[0]))
    order = argsort(keys[0], axis=axis)
    for key in keys[1:]:
        order = take_along_axis(order, argsort(take_along_axis(key, order, axis, mode=_IN), axis=axis),
                                axis)
    return order


def partition(a, kth, axis=-1):
    """a with its kth element where sorting would put it, the smaller ones before it and the
    larger ones after, in JAX's order: the first kth + 1 ascending, the rest descending."""
    a = _as_operand(a)
    k = _check_kth(a, kth, axis)
    ordered = moveaxis(sort(a, axis=axis), axis, -1)
    parts = [ordered[..., :k + 1], flip(ordered[..., k + 1:], -1)]
    return moveaxis(concatenate(parts, axis=-1), -1, axis)


def argpartition(a, kth, axis=-1):
    """Indices that partition a (see `partition`), in JAX's order: those of the kth + 1
    smallest ascending by value, then the others in increasing index order."""
    a = _as_operand(a)
    k = _check_kth(a, kth, axis)
    order = moveaxis(argsort(a, axis=axis), axis, -1)
    parts = [order[..., :k + 1], sort(order[..., k + 1:], axis=-1)]
    order = moveaxis(concatenate(parts, axis=-1), -1, axis)
    return bind("convert", order, dtype=index_dtype(u.shape(a)[u.normalize_axis(axis, u.ndim(a))]))


def _check_kth(a, kth, axis):
    n = u.shape(a)[u.normalize_axis(axis, u.ndim(a))]
    k = u.static_int(kth, "partition's kth")
    if not -n <= k < n:
        raise u.ShapeError(f"partition: kth={k} is out of range for an axis of length {n}")
    return k % n


def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for every i (choices and a broadcast together)."""
    from ._joining import stack
    from ._shape import broadcast_arrays
    a = _as_operand(a)
    choices = [_as_operand(c) for c in choices]
    n = len(choices)
    if mode == "raise":
        if u.is_abstract(a):
            raise u.concretization("choose(mode='raise') needs concrete indices",
                                   hint="pass mode='clip' or mode='wrap'")
        if np.any((np.asarray(a) < 0) | (np.asarray(a) >= n)):
            raise u.ShapeError(f"choose: an index is outside [0, {n})")
    elif mode == "wrap":
        a = bind("rem", a, n)
    elif mode == "clip":
        a = bind("clamp", 0, a, n - 1)
    else:
        raise u.DtypeError(f"choose: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    a, *choices = broadcast_arrays(a, *choices)
    stacked = stack(choices, axis=0)
    return take_along_axis(stacked, reshape(a, (1,) + u.shape(a)), 0, mode=_IN)[0]


def _no_inplace(name, inplace):
    if inplace:
        raise u.DtypeError(f"jnp.{name} cannot modify its argument in place (arrays are "
                           "immutable)", hint=f"call jnp.{name}(..., inplace=False) and use the "
                                              "array it returns")


def put(a, ind, v, mode=None, *, inplace=True):
    """a with v written at the flat indices ind (v repeated as needed)."""
    from ._shape import resize
    _no_inplace("put", inplace)
    a, ind = _as_operand(a), ravel(_as_operand(ind))
    size = u.size(a)
    values = resize(_as_operand(v), u.shape(ind))
    if mode == "clip":
        ind = bind("clamp", 0, ind, size - 1)
    elif mode == "wrap":
        ind = bind("rem", ind, size)
    elif mode is None:  # as JAX's put, whose unravel_index clamps into [-size, size - 1]
        ind = bind("clamp", -size, ind, size - 1)
    elif mode not in ("fill", "drop"):
        raise u.DtypeError(f"put: mode must be 'clip', 'wrap', 'fill' or 'drop', not {mode!r}")
    flat = ravel(a).at[ind].set(values)
    return reshape(flat, u.shape(a))


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    _no_inplace("put_along_axis", inplace)
    arr, indices = _as_operand(arr), _as_operand(indices)
    if axis is None:
        return reshape(put(ravel(arr), indices, values, inplace=False), u.shape(arr))
    rank = u.ndim(arr)
    axis = u.normalize_axis(axis, rank)
    index = []
    for d in range(rank):
        if d == axis:
            index.append(indices)
        else:
            shape = tuple(u.shape(arr)[d] if i == d else 1 for i in range(rank))
            index.append(bind("iota", dtype="int64", shape=shape, dimension=d))
    return arr.at[tuple(index)].set(values, mode=mode)


def place(arr, mask, vals, *, inplace=True):
    """arr with its masked elements replaced, in order, by vals (repeated as needed)."""
    _no_inplace("place", inplace)
    arr, mask = _as_operand(arr), _as_operand(mask)
    vals = ravel(_as_operand(vals))
    flat_mask = ravel(bind("ne", mask, 0))
    rank = bind("sub", bind("cumsum", bind("convert", flat_mask, dtype="int64"), axis=0,
                            reverse=False), 1)
    n = u.shape(vals)[0]
    if n == 0:
        return arr
    picked = take(vals, bind("rem", bind("max", rank, 0), n))
    picked = picked if u.dtype_of(picked) == u.dtype_of(arr) else \
        bind("convert", picked, dtype=u.dtype_of(arr).name)
    return reshape(bind("select", flat_mask, picked, ravel(arr)), u.shape(arr))


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """a with val (repeated as needed) on its main diagonal (NumPy's wrap for tall matrices)."""
    from ._shape import resize
    _no_inplace("fill_diagonal", inplace)
    a = _as_operand(a)
    s = u.shape(a)
    if len(s) < 2 or (len(s) > 2 and len(set(s)) != 1):
        raise u.ShapeError("fill_diagonal: a needs 2 axes, or more all of one length")
    if len(s) == 2:
        step, end = s[1] + 1, None if wrap else s[1] * s[1]
    else:
        step, end = 1 + int(np.cumprod(s[:-1]).sum()), None
    positions = np.arange(int(u.size(a)))[:end:step]
    values = resize(_as_operand(val), (len(positions),))
    return reshape(ravel(a).at[asarray(positions)].set(values), s)
