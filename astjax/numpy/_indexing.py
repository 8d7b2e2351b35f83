"""`x[index]` and `x.at[index].set/add/...` with NumPy's indexing semantics.

Supported index entries: ints (negative too), slices with any step, `None`, `...`, integer arrays
(advanced indexing: several index arrays broadcast together, placed as NumPy places them),
static boolean masks (NumPy arrays), and abstract integer scalars (a loop counter). An abstract
boolean mask has a data-dependent shape and raises ConcretizationError.

As in JAX, out-of-range *array* indices (static or abstract) are clamped; an out-of-range static
int raises ShapeError (like NumPy's IndexError). Updates are functional: they return a new array.
"""
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.dims import slice_indices, slice_length
from . import _util as u
from ._creation import _as_operand, asarray
from ._util import bind

SLICE, INT, DYNAMIC, ARRAY, NEW = "slice", "int", "dynamic", "array", "new"


@dataclass
class Entry:
    kind: str      # one of the five kinds above
    value: Any     # a slice, an int, an index array (static or abstract), or None
    size: Any = None  # the size of the dimension of x it indexes (a mask's own size at first)


# ---------------------------------------------------------------- parsing
def parse(index, shape: tuple) -> list:
    """One Entry per indexed dimension of x, plus NEW entries; `...` expanded, masks unfolded."""
    raw = index if isinstance(index, tuple) else (index,)
    entries = []
    for item in raw:
        entries.extend(_classify(item))
    consumed = sum(1 for e in entries if e not in (Ellipsis, NEW))
    if consumed > len(shape):
        raise u.ShapeError(f"too many indices for an array of shape {shape}: {consumed} indexed",
                           hint="index at most one entry per dimension")
    if entries.count(Ellipsis) > 1:
        raise u.ShapeError("an index can only have a single ellipsis ('...')")
    fill = [slice(None)] * (len(shape) - consumed)
    at = entries.index(Ellipsis) if Ellipsis in entries else len(entries)
    entries[at:at + 1] = [Entry(SLICE, s) for s in fill]
    return _attach_sizes(entries, shape)


def _classify(item) -> list:
    if item is None:
        return [NEW]
    if item is Ellipsis:
        return [Ellipsis]
    if isinstance(item, slice):
        _check_static_slice(item)
        return [Entry(SLICE, item)]
    if isinstance(item, (bool, np.bool_)):
        raise u.ShapeError("a boolean scalar index is not supported", hint="use x[None] or "
                           "jnp.where")
    if isinstance(item, (int, np.integer)):
        return [Entry(INT, int(item))]
    if isinstance(item, (list, tuple)):
        item = asarray(item) if _holds_var(item) else np.asarray(item)
    if u.is_abstract(item):
        return [_abstract_entry(item)]
    if isinstance(item, np.ndarray):
        return _static_array_entries(item)
    raise u.DtypeError(f"arrays cannot be indexed by {type(item).__name__}",
                       hint="use ints, slices, None, ..., integer arrays or static boolean masks")


def _holds_var(seq) -> bool:
    return any(u.is_abstract(e) or isinstance(e, (list, tuple)) and _holds_var(e) for e in seq)


def _check_static_slice(s: slice):
    if any(u.is_abstract(b) for b in (s.start, s.stop, s.step)):
        raise u.concretization(
            "slice bounds must be static: the length of x[a:b] would depend on run-time values",
            hint="use lax.dynamic_slice(x, (start,), (size,)) with a static size")


def _abstract_entry(item):
    if item.dtype.kind == "b":
        raise u.concretization(
            "a boolean mask that is an array value selects a data-dependent number of elements",
            hint="use jnp.where(mask, x, fill) to keep the shape, or make the mask static")
    if item.dtype.kind not in "iu":
        raise u.DtypeError(f"indices must be integers, got {item.dtype}")
    return Entry(DYNAMIC if item.ndim == 0 else ARRAY, item)


def _static_array_entries(item) -> list:
    if item.dtype.kind == "b":
        if item.ndim == 0:
            raise u.ShapeError("a 0-d boolean index is not supported", hint="use jnp.where")
        return [Entry(ARRAY, i, n) for i, n in zip(np.nonzero(item), item.shape)]
    if item.dtype.kind not in "iu":
        raise u.DtypeError(f"indices must be integers, got {item.dtype}")
    return [Entry(INT, int(item))] if item.ndim == 0 else [Entry(ARRAY, item)]


def _attach_sizes(entries, shape) -> list:
    dims = iter(shape)
    out = []
    for e in entries:
        if e is NEW:
            out.append(Entry(NEW, None, 0))
            continue
        size = next(dims)
        if e.size is not None and e.size != size:
            raise u.ShapeError(f"a boolean mask does not match the array's shape {shape}",
                               hint="the mask's shape must equal the shape of the axes it indexes")
        out.append(Entry(e.kind, e.value, size))
    return out


def _static_int(e: Entry) -> int:
    """A static index read as JAX reads it: negative counts from the end, out of range clamps."""
    if e.size == 0:
        raise u.ShapeError(f"index {e.value} into an axis of size 0",
                           hint="there is nothing to read along this axis")
    if in_range(e):
        return e.value % e.size
    return 0 if e.value < 0 else e.size - 1  # past either end: the nearest element


def in_range(e: Entry) -> bool:
    """Whether a static index names an element (an update at any other index is dropped)."""
    return -e.size <= e.value < e.size


# ---------------------------------------------------------------- reading
def getitem(x, index):
    x = _as_operand(x)
    entries = parse(index, u.shape(x))
    if any(e.kind == ARRAY for e in entries):
        return _advanced(x, entries)
    return _basic(x, entries)


def _slice_bounds(e: Entry):
    """(start, limit, stride, reversed) selecting e's slice, after reversing the axis if needed."""
    start, stop, step = slice_indices(e.value, e.size)
    count = slice_length(start, stop, step)
    flipped = step < 0
    if flipped:
        start, step = e.size - 1 - start, -step
    limit = start + (count - 1) * step + 1 if count else start
    return start, limit, step, flipped


def _apply_slices(x, entries):
    """Static slices and static ints applied at once; other indexed dims kept whole."""
    dims = [e for e in entries if e.kind != NEW]
    bounds = []
    for e in dims:
        if e.kind == SLICE:
            bounds.append(_slice_bounds(e))
        elif e.kind == INT:
            i = _static_int(e)
            bounds.append((i, i + 1, 1, False))
        else:
            bounds.append((0, e.size, 1, False))
    flipped = tuple(d for d, b in enumerate(bounds) if b[3])
    if flipped:
        x = bind("rev", x, dimensions=flipped)
    starts, limits, strides = (tuple(b[k] for b in bounds) for k in range(3))
    if starts != (0,) * len(dims) or limits != u.shape(x) or strides != (1,) * len(dims):
        x = bind("slice", x, start_indices=starts, limit_indices=limits, strides=strides)
    return x


def _kept_shape(x_sliced, entries, keep_ints=False) -> tuple:
    """The shape after dropping int dims (unless keep_ints) and inserting NEW dims."""
    dims = iter(u.shape(x_sliced))
    shape = []
    for e in entries:
        if e.kind == NEW:
            shape.append(1)
        elif e.kind == INT and not keep_ints:
            next(dims)
        else:
            shape.append(next(dims))
    return tuple(shape)


def _basic(x, entries):
    y = _apply_slices(x, entries)
    target = _kept_shape(y, entries)
    if target != u.shape(y):
        y = bind("reshape", y, new_sizes=target)
    positions = [i for i, e in enumerate(e for e in entries if e.kind != INT) if e.kind == DYNAMIC]
    kept = [e for e in entries if e.kind != INT]
    for pos in reversed(positions):  # from the last, so earlier positions stay valid
        y = bind("take", y, kept[pos].value, axis=pos)
    return y


def _advanced(x, entries):
    """Slices first; then all index arrays gather at once on the merged indexed dims."""
    entries = [Entry(ARRAY, np.asarray(e.value) if e.kind == INT else e.value, e.size)
               if e.kind in (INT, DYNAMIC) else e for e in entries]
    y = _apply_slices(x, entries)
    target = _kept_shape(y, entries)
    if target != u.shape(y):  # only NEW dims differ: ints became arrays
        y = bind("reshape", y, new_sizes=target)
    positions = [i for i, e in enumerate(entries) if e.kind == ARRAY]
    arrays = [entries[i] for i in positions]
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    front = positions[0] if adjacent else 0
    if len(arrays) == 1:
        return bind("take", y, arrays[0].value, axis=front)
    y = _merge_axes(y, positions, front)
    return bind("take", y, _flat_index(arrays), axis=front)


def _merge_axes(y, positions, front):
    rest = [i for i in range(u.ndim(y)) if i not in positions]
    perm = tuple(rest[:front] + positions + rest[front:])
    if perm != tuple(range(len(perm))):
        y = bind("transpose", y, permutation=perm)
    s = u.shape(y)
    merged = math.prod(s[front:front + len(positions)])
    return bind("reshape", y, new_sizes=s[:front] + (merged,) + s[front + len(positions):])


def _flat_index(arrays):
    """Row-major position in the merged axis; each index wrapped (negative) and clamped first."""
    flat, stride = 0, 1
    for e in reversed(arrays):
        term = _clamped(e.value, e.size)
        flat = _plus(flat, _times(term, stride))
        stride *= e.size
    return flat


def _clamped(index, size):
    if not u.is_abstract(index):
        return np.clip(np.where(index < 0, index + size, index), 0, max(size - 1, 0))
    wrapped = bind("select", bind("lt", index, 0), bind("add", index, size), index)
    return bind("clamp", 0, wrapped, max(size - 1, 0))


def _times(a, stride):
    if stride == 1:
        return a
    return bind("mul", a, stride) if u.is_abstract(a) else a * stride


def _plus(a, b):
    if isinstance(a, int) and a == 0:
        return b
    if not u.is_abstract(a) and not u.is_abstract(b):
        return a + b  # static index arithmetic
    return bind("add", a, b)
