"""Functional updates: `x.at[index].set(v)`, `.add`, `.multiply`, `.min`, `.max`, `.get`, ...

Each returns a new array. Two lowerings:
  * a block of x (static ints, step-1 slices, abstract int scalars): `dynamic_update_slice`,
    reading the block first with `dynamic_slice` for combining updates;
  * anything else (strided or reversed slices, index arrays, masks): the flat positions of the
    selected elements are found by indexing an `iota` with the same index, then one `scatter`
    on the flattened array. Repeated indices accumulate for add/multiply/min/max (like JAX).
As in JAX (and unlike NumPy), the values are cast to x's dtype. Out-of-range indices follow
JAX's `mode`: an update at an index out of range (an int, a run-time scalar or an element of
an index array) is dropped (the default, "drop" or "fill"), or clamped into range with
mode="clip"; `.get(mode="fill", fill_value=v)` reads v there (reads otherwise clamp).
"""
import math
import numpy as np

from ..core.dims import is_symbolic, slice_indices, slice_length
from . import _util as u
from ..core.array import Array
from ..core.bind import eager
from ._creation import _as_operand
from ._indexing import ARRAY, DYNAMIC, INT, NEW, SLICE, getitem, in_range, parse
from ._shape import broadcast_to, reshape
from ._util import bind

COMBINE = {"add": "add", "mul": "mul", "min": "min", "max": "max"}


class IndexUpdateHelper:
    """What `x.at` returns; `x.at[index]` is an IndexUpdateRef."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return IndexUpdateRef(self.array, index)


class IndexUpdateRef:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, *, mode=None, fill_value=None, **_):
        if mode == "fill":
            return _get_or_fill(self.array, self.index, fill_value)
        return getitem(self.array, self.index)

    def set(self, values, *, mode=None, **_):
        return update(self.array, self.index, values, "set", mode)

    def add(self, values, *, mode=None, **_):
        return update(self.array, self.index, values, "add", mode)

    def subtract(self, values, *, mode=None, **_):
        return update(self.array, self.index, bind("neg", _as_operand(values)), "add", mode)

    def multiply(self, values, *, mode=None, **_):
        return update(self.array, self.index, values, "mul", mode)

    mul = multiply

    def min(self, values, *, mode=None, **_):
        return update(self.array, self.index, values, "min", mode)

    def max(self, values, *, mode=None, **_):
        return update(self.array, self.index, values, "max", mode)

    def divide(self, values, *, mode=None, **_):
        return self.apply(lambda old: bind("div", old, _as_operand(values)), mode=mode)

    def power(self, values, *, mode=None, **_):
        return self.apply(lambda old: bind("pow", old, _as_operand(values)), mode=mode)

    def apply(self, func, *, mode=None, **_):
        """func(old) written back (with repeated indices, the last write wins)."""
        return update(self.array, self.index, func(self.get()), "set", mode)


def at(x):
    """The functional form of `x.at` (plain NumPy arrays have no `.at` attribute)."""
    return IndexUpdateHelper(_as_operand(x))


Array.ops["at"] = at  # eager results (astjax.core.array.Array) get `.at` too


def update(x, index, values, mode, out_of_range=None):
    """`out_of_range`: JAX's mode for indices outside the array ("clip" clamps them; anything
    else drops the update)."""
    x = _as_operand(x)
    values = _cast_like(_as_operand(values), x)
    entries = parse(index, u.shape(x))
    if _is_block(entries):
        clip = out_of_range == "clip"
        if not clip and _static_out_of_range(entries):
            return x  # a static index past the end: nothing to update
        new = _update_block(x, entries, values, mode)
        inside = None if clip else _dynamic_in_range(entries)
        return new if inside is None else bind("select", inside, new, x)
    if out_of_range != "clip":
        if _static_out_of_range(entries):
            return x  # every update is at a static index past the end: all are dropped
        index, padded = _dropping(entries)
        return _update_scattered(x, index, values, mode, padded)
    return _update_scattered(x, index, values, mode)


def _static_out_of_range(entries) -> bool:
    """Whether a static int index lies outside its axis."""
    return any(e.kind == INT and not in_range(e) for e in entries)


def _dynamic_in_range(entries, result_rank: int = 0):
    """Where every abstract int index and index array lies inside its axis, as a bool array
    that broadcasts against the read of rank `result_rank` (its index arrays' dims where
    NumPy puts them), or None if there are no such indices."""
    inside, arrays = None, []
    for e in entries:
        if e.kind == DYNAMIC:
            ok = _index_in_range(e.value, e.size)
            inside = ok if inside is None else bind("bitwise_and", inside, ok)
        elif e.kind == ARRAY and u.dtype_of(_as_operand(e.value)).kind in "iu":
            arrays.append(_index_in_range(_as_operand(e.value), e.size))
    if arrays:
        ok = arrays[0]
        for more in arrays[1:]:
            ok = bind("bitwise_and", ok, more)
        rank = u.ndim(ok)
        first = _advanced_position(entries)
        ok = reshape(ok, (1,) * first + tuple(u.shape(ok)) + (1,) * (result_rank - first - rank))
        inside = ok if inside is None else bind("bitwise_and", inside, ok)
    return inside


def _index_in_range(index, size):
    """-size <= index < size: a negative index counts from the end."""
    return bind("bitwise_and", bind("ge", index, -size), bind("lt", index, size))


def _advanced_position(entries) -> int:
    """Where NumPy puts the index arrays' dims in the result: in place of the first of them when
    they (with any int indices) sit side by side, else first."""
    advanced = [i for i, e in enumerate(entries) if e.kind in (ARRAY, INT, DYNAMIC)]
    if advanced[-1] - advanced[0] + 1 != len(advanced):
        return 0
    return sum(1 for e in entries[:advanced[0]] if e.kind in (SLICE, NEW))


def _get_or_fill(x, index, fill_value):
    """x[index], or fill_value where an integer index is out of range (NaN for floats by
    default, as JAX)."""
    x = _as_operand(x)
    entries = parse(index, u.shape(x))
    read = getitem(x, index)
    if _static_out_of_range(entries):
        return bind("full", default_fill(x, fill_value), shape=tuple(u.shape(read)),
                    dtype=u.dtype_of(x).name)
    inside = _dynamic_in_range(entries, u.ndim(read))
    return read if inside is None else filled_outside(inside, read, x, fill_value)


def default_fill(x, fill_value):
    """What an out-of-range read of x gives: fill_value, by default NaN for floats and the
    most negative integer (as JAX)."""
    if fill_value is not None:
        return fill_value
    return np.nan if u.dtype_of(x).kind in "fc" else np.iinfo(u.dtype_of(x)).min


def filled_outside(inside, read, x, fill_value):
    """`read` where `inside`, elsewhere the fill (of x's dtype)."""
    return bind("select", inside, read, _cast_like(_as_operand(default_fill(x, fill_value)), x))


def _is_block(entries) -> bool:
    return all(e.kind in (INT, DYNAMIC, NEW) or e.kind == SLICE and slice_indices(e.value, e.size)[2] == 1
               for e in entries)


def _update_block(x, entries, values, mode):
    dims = [e for e in entries if e.kind != NEW]
    starts = [_block_start(e) for e in dims]
    sizes = tuple(_block_size(e) for e in dims)
    if 0 in sizes:
        return x
    values = _as_block(values, _selected_shape(entries, sizes), sizes, scalar_ok=mode != "set")
    if mode != "set":
        old = bind("dynamic_slice", x, *starts, slice_sizes=sizes)
        values = bind(COMBINE[mode], old, values)
    return bind("dynamic_update_slice", x, _cast_like(values, x), *starts)  # (a combine may widen)


def _as_block(values, selected_shape, sizes, scalar_ok):
    """values shaped like the block (x[index] with its int dims kept); a scalar combined with
    the old block broadcasts by itself."""
    if u.ndim(values) == 0:
        if scalar_ok:
            return values
        return bind("broadcast_in_dim", values, shape=sizes, broadcast_dimensions=())
    return reshape(broadcast_to(values, selected_shape), sizes)


def _block_start(e):
    if e.kind == SLICE:
        return slice_indices(e.value, e.size)[0]
    if e.kind == INT:
        from ._indexing import _static_int
        return _static_int(e)
    return bind("select", bind("lt", e.value, 0), bind("add", e.value, e.size), e.value)


def _block_size(e) -> int:
    if e.kind == SLICE:
        return slice_length(*slice_indices(e.value, e.size))
    return 1


def _selected_shape(entries, sizes) -> tuple:
    """The shape x[index] has (ints dropped, NEW dims inserted): what values broadcast to."""
    sizes = iter(sizes)
    shape = []
    for e in entries:
        if e.kind == NEW:
            shape.append(1)
        else:
            size = next(sizes)
            if e.kind == SLICE:
                shape.append(size)
    return tuple(shape)


def _dropping(entries) -> tuple:
    """(index, padded axes): the index rewritten so an out-of-range index (array or run-time
    scalar) reads one past the end of its axis, where `_flat_positions` puts a sentinel that
    the scatter drops, as JAX drops such updates."""
    items, padded = [], []
    axes = iter(range(len(entries)))
    for e in entries:
        if e.kind == NEW:
            items.append(None)
            continue
        axis = next(axes)
        if e.kind in (ARRAY, DYNAMIC):
            wrapped = _where(e.value < 0, e.value + e.size, e.value)
            inside = (wrapped >= 0) & (wrapped < e.size)
            items.append(_where(inside, wrapped, e.size))
            padded.append(axis)
        else:
            items.append(e.value)
    return tuple(items), tuple(padded)


def _where(pred, a, b):
    if any(u.is_abstract(v) for v in (pred, a, b)):
        return bind("select", pred, a, b)
    return np.where(pred, a, b)


def _update_scattered(x, index, values, mode, padded=()):
    positions = _flat_positions(u.shape(x), index, padded)
    values = broadcast_to(values, u.shape(positions))
    flat = reshape(x, (u.size(x),))
    out = bind("scatter", flat, positions, values, axis=0,
               mode="set" if mode == "set" else COMBINE[mode])
    return reshape(out, u.shape(x))


def _flat_positions(shape, index, padded=()):
    """Where x[index]'s elements sit in x.ravel(): the same index applied to an iota. The
    `padded` axes get one more position at their end, holding x.size (out of range)."""
    size = math.prod(shape)
    padding = tuple((0, 1 if axis in padded else 0, 0) for axis in range(len(shape)))
    if _is_static(index) and not any(is_symbolic(d) for d in shape):
        with eager():
            ids = np.pad(np.arange(size).reshape(shape), [p[:2] for p in padding],
                         constant_values=size)
            return getitem(ids, index)
    ids = bind("reshape", bind("iota", dtype="int64", shape=(size,), dimension=0),
               new_sizes=tuple(shape))
    if padded:
        ids = bind("pad", ids, np.int64(size), config=padding)
    return getitem(ids, index)


def _is_static(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return not any(u.is_abstract(i) or isinstance(i, (list, tuple)) and not _is_static(tuple(i))
                   for i in items)


def _cast_like(values, x):
    """values in x's dtype; a Python scalar becomes a typed constant, not a convert."""
    dtype = u.dtype_of(x)
    if isinstance(values, (bool, int, float, complex)):
        return np.asarray(values, dtype)
    return values if u.dtype_of(values) == dtype else bind("convert", values, dtype=dtype.name)
