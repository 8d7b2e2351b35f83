"""lax.gather and the lax.scatter family with XLA's dimension numbers, and index_take.

Both are compositions: every element's operand coordinate is computed (the window start from
the index vector, clamped or checked as `mode` says, plus the element's offset in the window),
turned into a flat position, and read with one `take` (gather) or written with one `scatter`
(its combiner: set, add, mul, min, max) on the flattened operand. So they differentiate and
batch through those two primitives' rules on every backend.
"""
import enum
import math
from typing import NamedTuple, Sequence

import numpy as np

import astjax.numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind


class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    CLIP = 0
    FILL_OR_DROP = 1
    PROMISE_IN_BOUNDS = 2
    ONE_HOT = 3

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise u.DtypeError(f"unknown gather/scatter mode {s!r}",
                           hint="use 'clip', 'fill', 'drop' or 'promise_in_bounds'")


def _window_positions(operand_shape, indices, index_map, batching, index_batching, window,
                      window_sizes, clip):
    """(flat operand positions, shape batch + window sizes; in-bounds mask of shape batch).

    `window`: the operand dims that have an offset axis (in order), of sizes window_sizes."""
    batch = u.shape(indices)[:-1]
    nb, nw = len(batch), len(window)
    strides = [math.prod(operand_shape[d + 1:]) for d in range(len(operand_shape))]
    sizes = [1] * len(operand_shape)
    for d, n in zip(window, window_sizes):
        sizes[d] = n
    flat, inside = None, None
    for d, dim in enumerate(operand_shape):
        start = None
        if d in index_map:
            start = jnp.astype(indices[..., index_map.index(d)], np.int64)
            highest = dim - sizes[d]
            ok = (start >= 0) & (start <= highest)
            inside = ok if inside is None else inside & ok
            if clip:
                start = jnp.clip(start, 0, max(highest, 0))
        elif d in batching:
            axis = index_batching[batching.index(d)]
            start = bind("iota", dtype="int64", shape=tuple(batch), dimension=axis)
        coordinate = None if start is None else jnp.reshape(start, tuple(batch) + (1,) * nw)
        if d in window:
            j = window.index(d)
            offset = bind("iota", dtype="int64", shape=(1,) * nb + tuple(
                window_sizes[k] if k == j else 1 for k in range(nw)), dimension=nb + j)
            coordinate = offset if coordinate is None else coordinate + offset
        if coordinate is None:
            continue
        term = coordinate * strides[d] if strides[d] != 1 else coordinate
        flat = term if flat is None else flat + term
    full = tuple(batch) + tuple(window_sizes)
    flat = jnp.zeros(full, np.int64) if flat is None else jnp.broadcast_to(flat, full)
    return flat, inside


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    x, indices = _as_operand(operand), _as_operand(start_indices)
    dn = dimension_numbers
    mode = GatherScatterMode.from_any(mode)
    shape = u.shape(x)
    slice_sizes = tuple(int(s) for s in slice_sizes)
    window = [d for d in range(len(shape))
              if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
    window_sizes = [slice_sizes[d] for d in window]
    flat, inside = _window_positions(
        shape, indices, tuple(dn.start_index_map), tuple(dn.operand_batching_dims),
        tuple(dn.start_indices_batching_dims), window, window_sizes,
        clip=mode != GatherScatterMode.FILL_OR_DROP)
    out = jnp.take(jnp.ravel(x), jnp.clip(flat, 0, max(u.size(x) - 1, 0)))
    if mode == GatherScatterMode.FILL_OR_DROP and inside is not None:
        if fill_value is None:
            fill_value = np.nan if u.is_inexact(x) else (
                np.iinfo(u.dtype_of(x)).min if u.kind(x) in "iu" else True)
        mask = jnp.reshape(inside, u.shape(inside) + (1,) * len(window))
        out = jnp.where(mask, out, np.asarray(fill_value, u.dtype_of(x)))
    return _to_output_order(out, len(u.shape(indices)) - 1, tuple(dn.offset_dims))


def _to_output_order(canonical, nb, offset_dims):
    """canonical (batch..., window...) with the window axes moved to offset_dims."""
    rank = u.ndim(canonical)
    batch_positions = [i for i in range(rank) if i not in offset_dims]
    perm = [0] * rank
    for k, pos in enumerate(batch_positions):
        perm[pos] = k
    for k, pos in enumerate(offset_dims):
        perm[pos] = nb + k
    return jnp.transpose(canonical, perm) if perm != list(range(rank)) else canonical


_COMBINE = {"set": "set", "add": "add", "mul": "mul", "min": "min", "max": "max"}


def _scatter(combine, operand, scatter_indices, updates, dimension_numbers, mode):
    x, indices, updates = (_as_operand(v) for v in (operand, scatter_indices, updates))
    dn = dimension_numbers
    mode = GatherScatterMode.from_any(mode)
    shape = u.shape(x)
    window = [d for d in range(len(shape))
              if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    update_window = tuple(dn.update_window_dims)
    window_sizes = [u.shape(updates)[a] for a in update_window]
    rank = u.ndim(updates)
    scatter_axes = [a for a in range(rank) if a not in update_window]
    canonical = jnp.transpose(updates, scatter_axes + list(update_window)) \
        if scatter_axes + list(update_window) != list(range(rank)) else updates
    flat, inside = _window_positions(
        shape, indices, tuple(dn.scatter_dims_to_operand_dims),
        tuple(dn.operand_batching_dims), tuple(dn.scatter_indices_batching_dims), window,
        window_sizes, clip=mode == GatherScatterMode.CLIP)
    size = u.size(x)
    if inside is not None and mode != GatherScatterMode.CLIP:  # drop windows not inside
        mask = jnp.reshape(inside, u.shape(inside) + (1,) * len(window))
        flat = jnp.where(mask, flat, np.int64(size))
    values = canonical if u.dtype_of(canonical) == u.dtype_of(x) else \
        bind("convert", canonical, dtype=u.dtype_of(x).name)
    out = bind("scatter", jnp.ravel(x), jnp.ravel(flat), jnp.ravel(values), axis=0,
               mode=_COMBINE[combine])
    return jnp.reshape(out, shape)


def scatter(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
            unique_indices=False, mode=None):
    return _scatter("set", operand, scatter_indices, updates, dimension_numbers, mode)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    return _scatter("add", operand, scatter_indices, updates, dimension_numbers, mode)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    return _scatter("add", operand, scatter_indices, bind("neg", _as_operand(updates)),
                    dimension_numbers, mode)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    return _scatter("mul", operand, scatter_indices, updates, dimension_numbers, mode)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    return _scatter("min", operand, scatter_indices, updates, dimension_numbers, mode)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
    return _scatter("max", operand, scatter_indices, updates, dimension_numbers, mode)


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """operand with func applied to the elements the scatter addresses, once per time each is
    addressed (as XLA applies the combiner once per update)."""
    from ..control import while_loop
    x = _as_operand(operand)
    hits = _scatter("add", jnp.zeros(u.shape(x), np.int64), scatter_indices,
                    jnp.ones(update_shape, np.int64), dimension_numbers, mode)
    rounds = jnp.max(hits) if u.size(x) else 0

    def again(state):
        return state[0] < rounds

    def apply(state):
        i, value = state
        return i + 1, jnp.where(hits > i, func(value), value)

    return while_loop(again, apply, (np.int64(0), x))[1]


def index_take(src, idxs, axes):
    """src indexed along `axes` by idxs (one index array per axis, wrapped modulo the axis
    length): the result has the indices' length first, then src's other axes."""
    src = _as_operand(src)
    axes = tuple(u.normalize_axis(a, u.ndim(src)) for a in axes)
    columns = [jnp.reshape(_as_operand(i), (-1, 1)) for i in idxs]
    sizes = np.asarray([u.shape(src)[a] for a in axes], np.int64)
    indices = jnp.concatenate(columns, axis=1) % sizes
    slice_sizes = tuple(1 if d in axes else n for d, n in enumerate(u.shape(src)))
    offset_dims = tuple(range(1, 1 + u.ndim(src) - len(axes)))
    dn = GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(sorted(axes)),
                                start_index_map=axes)
    return gather(src, indices, dn, slice_sizes)
