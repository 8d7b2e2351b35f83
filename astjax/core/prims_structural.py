"""Reductions, shape manipulation, indexing, contraction and creation primitives.

Parameters are static and keyword-only (`axes=(0,)`, `shape=(3, 4)`); array operands are
positional. Axes are always normalised to non-negative ints before a primitive is applied.
"""
import numpy as np

from ..errors import ShapeError
from .avals import AVal
from .primitives import define


def _rule_from_impl(impl, shape_rule):
    """dtype from NumPy on a 1-element stand-in, shape from shape_rule."""
    def abstract(*avals, **params):
        stand_ins = [np.ones((1,) * a.ndim, a.dtype) for a in avals]
        with np.errstate(all="ignore"):
            dtype = np.asarray(impl(*stand_ins, **params)).dtype
        return AVal(tuple(shape_rule(*avals, **params)), dtype)
    return abstract


# ---------------------------------------------------------------- reductions
def _reduced_shape(a, *, axes, **_):
    return [d for i, d in enumerate(a.shape) if i not in axes]


REDUCTIONS = {
    "reduce_sum": np.sum, "reduce_prod": np.prod, "reduce_max": np.max, "reduce_min": np.min,
    "reduce_and": np.all, "reduce_or": np.any,
}
for _name, _fn in REDUCTIONS.items():
    _impl = (lambda fn: lambda x, *, axes: fn(x, axis=tuple(axes)))(_fn)
    define(_name, _impl, _rule_from_impl(_impl, _reduced_shape), kind="reduction")


def _arg_impl(fn):
    return lambda x, *, axis, index_dtype: fn(x, axis=axis).astype(index_dtype)


for _name, _fn in {"argmax": np.argmax, "argmin": np.argmin}.items():
    define(_name, _arg_impl(_fn),
           lambda a, *, axis, index_dtype: AVal(tuple(_reduced_shape(a, axes=(axis,))),
                                                np.dtype(index_dtype)),
           kind="reduction")

CUMULATIVE = {"cumsum": np.cumsum, "cumprod": np.cumprod,
              "cummax": np.maximum.accumulate, "cummin": np.minimum.accumulate}


def _cumulative_impl(fn):
    def impl(x, *, axis, reverse=False):
        x = np.asarray(x)
        if reverse:
            return np.flip(fn(np.flip(x, axis), axis=axis), axis)
        return fn(x, axis=axis)
    return impl


for _name, _fn in CUMULATIVE.items():
    _impl = _cumulative_impl(_fn)
    define(_name, _impl, _rule_from_impl(_impl, lambda a, **_: a.shape), kind="reduction")


# ---------------------------------------------------------------- shape
def _same_dtype(shape_rule):
    return lambda a, **p: AVal(tuple(shape_rule(a, **p)), a.dtype, a.weak and False)


def _broadcast_in_dim(x, *, shape, broadcast_dimensions):
    x = np.asarray(x)
    expanded = [1] * len(shape)
    for src, dst in enumerate(broadcast_dimensions):
        expanded[dst] = x.shape[src]
    return np.broadcast_to(x.reshape(expanded), shape)


def _broadcast_in_dim_shape(a, *, shape, broadcast_dimensions):
    for src, dst in enumerate(broadcast_dimensions):
        if a.shape[src] not in (1, shape[dst]):
            raise ShapeError(f"cannot broadcast shape {a.shape} to {tuple(shape)}")
    return shape


def _reshape_shape(a, *, new_sizes):
    if int(np.prod(new_sizes, dtype=np.int64)) != a.size:
        raise ShapeError(f"cannot reshape an array of shape {a.shape} into shape {tuple(new_sizes)}")
    return new_sizes


def _slice(x, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return np.asarray(x)[tuple(slice(s, l, st) for s, l, st in
                               zip(start_indices, limit_indices, strides))]


def _slice_shape(a, *, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return [max(0, -(-(l - s) // st)) for s, l, st in zip(start_indices, limit_indices, strides)]


def _pad(x, value, *, config):
    x = np.asarray(x)
    out = x
    for axis, (lo, hi, interior) in enumerate(config):
        out = _pad_axis(out, value, axis, lo, hi, interior)
    return out


def _pad_axis(x, value, axis, lo, hi, interior):
    n = x.shape[axis]
    size = max(n + max(n - 1, 0) * interior, 0)
    shape = list(x.shape)
    shape[axis] = size
    body = np.full(shape, value, dtype=x.dtype)
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, size, interior + 1)
    body[tuple(index)] = x
    take = [slice(None)] * x.ndim
    take[axis] = slice(max(-lo, 0), size - max(-hi, 0))
    body = body[tuple(take)]
    widths = [(0, 0)] * x.ndim
    widths[axis] = (max(lo, 0), max(hi, 0))
    return np.pad(body, widths, constant_values=value)


def _pad_shape(a, v, *, config):
    return [lo + hi + d + max(d - 1, 0) * interior for d, (lo, hi, interior) in zip(a.shape, config)]


def _concatenate_abstract(*avals, dimension):
    first = avals[0]
    for a in avals[1:]:
        if a.ndim != first.ndim or any(x != y for i, (x, y) in enumerate(zip(a.shape, first.shape))
                                       if i != dimension):
            raise ShapeError(f"cannot concatenate shapes {first.shape} and {a.shape} "
                             f"along axis {dimension}")
    shape = list(first.shape)
    shape[dimension] = sum(a.shape[dimension] for a in avals)
    dtype = np.result_type(*[a.dtype for a in avals])
    return AVal(tuple(shape), dtype)


define("broadcast_in_dim", _broadcast_in_dim, _same_dtype(_broadcast_in_dim_shape), kind="structural")
define("reshape", lambda x, *, new_sizes: np.reshape(x, new_sizes), _same_dtype(_reshape_shape),
       kind="structural")
define("transpose", lambda x, *, permutation: np.transpose(x, permutation),
       _same_dtype(lambda a, *, permutation: [a.shape[p] for p in permutation]), kind="structural")
define("rev", lambda x, *, dimensions: np.flip(x, dimensions),
       _same_dtype(lambda a, **_: a.shape), kind="structural")
define("slice", _slice, _same_dtype(_slice_shape), kind="structural")
define("pad", _pad, lambda a, v, *, config: AVal(tuple(_pad_shape(a, v, config=config)), a.dtype),
       kind="structural")
define("concatenate", lambda *xs, dimension: np.concatenate(xs, axis=dimension),
       _concatenate_abstract, kind="structural")


# ---------------------------------------------------------------- creation
def _iota(*, dtype, shape, dimension):
    index = np.arange(shape[dimension], dtype=dtype)
    expanded = [1] * len(shape)
    expanded[dimension] = shape[dimension]
    return np.broadcast_to(index.reshape(expanded), shape).copy()


define("iota", _iota, lambda *, dtype, shape, dimension: AVal(tuple(shape), np.dtype(dtype)),
       kind="creation")
define("full", lambda value, *, shape, dtype: np.full(shape, value, dtype=dtype),
       lambda v, *, shape, dtype: AVal(tuple(shape), np.dtype(dtype)), kind="creation")


# ---------------------------------------------------------------- indexing
def _clip_index(index, size):
    """JAX's index rule: negative indices count from the end, the rest is clamped in range."""
    index = np.asarray(index)
    index = np.where(index < 0, index + size, index)
    return np.clip(index, 0, max(size - 1, 0))


def _take(x, index, *, axis):
    x = np.asarray(x)
    return np.take(x, _clip_index(index, x.shape[axis]), axis=axis)


def _take_shape(a, i, *, axis):
    return AVal(a.shape[:axis] + i.shape + a.shape[axis + 1:], a.dtype)


def _take_along(x, index, *, axis):
    x = np.asarray(x)
    return np.take_along_axis(x, _clip_index(index, x.shape[axis]), axis=axis)


def _take_along_shape(a, i, *, axis):
    return AVal(tuple(np.broadcast_shapes(a.shape[:axis] + (1,) + a.shape[axis + 1:],
                                          i.shape[:axis] + (1,) + i.shape[axis + 1:])[:axis]
                      + (i.shape[axis],)
                      + np.broadcast_shapes(a.shape[axis + 1:], i.shape[axis + 1:])), a.dtype)


SCATTER_MODES = {"set": None, "add": np.add, "mul": np.multiply, "min": np.minimum,
                 "max": np.maximum}


def _scatter(x, index, updates, *, axis, mode):
    """x with x[..., index, ...] (at `axis`) combined with updates; out-of-range indices dropped."""
    out = np.array(x, copy=True)
    index = np.asarray(index)
    size = out.shape[axis]
    index = np.where(index < 0, index + size, index)
    keep = (index >= 0) & (index < size)
    moved = np.moveaxis(out, axis, 0)
    updates = np.broadcast_to(updates, index.shape + moved.shape[1:]).astype(out.dtype)
    index, updates = index[keep], updates[keep]
    if mode == "set":
        moved[index] = updates
    else:
        SCATTER_MODES[mode].at(moved, index, updates)
    return out


define("take", _take, _take_shape, kind="indexing")
define("take_along_axis", _take_along, _take_along_shape, kind="indexing")
define("scatter", _scatter, lambda a, i, u, *, axis, mode: a.strong(), kind="indexing")


def _dynamic_slice(x, *starts, slice_sizes):
    x = np.asarray(x)
    starts = [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, x.shape, slice_sizes)]
    return x[tuple(slice(s, s + n) for s, n in zip(starts, slice_sizes))].copy()


def _dynamic_update_slice(x, update, *starts):
    out = np.array(x, copy=True)
    update = np.asarray(update)
    starts = [int(np.clip(int(s), 0, d - n)) for s, d, n in zip(starts, out.shape, update.shape)]
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


define("dynamic_slice", _dynamic_slice,
       lambda a, *s, slice_sizes: AVal(tuple(slice_sizes), a.dtype), kind="indexing")
define("dynamic_update_slice", _dynamic_update_slice, lambda a, u, *s: a.strong(),
       kind="indexing")


# ---------------------------------------------------------------- contraction and sorting
def _dot_general(a, b, *, dimension_numbers):
    """As a batched matmul (BLAS): each operand laid out as (batch, free, contracted)."""
    (lc, rc), (lb, rb) = dimension_numbers
    a, b = np.asarray(a), np.asarray(b)
    a_free = [i for i in range(a.ndim) if i not in lc and i not in lb]
    b_free = [i for i in range(b.ndim) if i not in rc and i not in rb]
    batch = [a.shape[i] for i in lb]
    size = lambda x, axes: int(np.prod([x.shape[i] for i in axes], dtype=np.int64))  # noqa: E731
    a2 = a.transpose(list(lb) + a_free + list(lc)).reshape(batch + [size(a, a_free), size(a, lc)])
    b2 = b.transpose(list(rb) + list(rc) + b_free).reshape(batch + [size(b, rc), size(b, b_free)])
    out = np.matmul(a2, b2)
    return out.reshape(batch + [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])


def _dot_general_abstract(a, b, *, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    for i, j in zip(lc + lb, rc + rb):
        if a.shape[i] != b.shape[j]:
            raise ShapeError(f"dot of shapes {a.shape} and {b.shape}: contracted axes "
                             f"{i} and {j} have sizes {a.shape[i]} and {b.shape[j]}")
    shape = ([a.shape[i] for i in lb] + [d for i, d in enumerate(a.shape) if i not in lc + lb]
             + [d for j, d in enumerate(b.shape) if j not in rc + rb])
    return AVal(tuple(shape), np.result_type(a.dtype, b.dtype))


define("dot_general", _dot_general, _dot_general_abstract, kind="contraction")


def _einsum_labels(term: str, rank: int, ellipsis_rank: int) -> list:
    """The labels of one einsum term; the dims an ellipsis covers become ('...', k) labels,
    right-aligned so that they broadcast across terms as NumPy does."""
    if "..." not in term:
        return list(term)
    head, tail = term.split("...")
    covered = rank - len(head) - len(tail)
    return list(head) + [("...", k) for k in range(ellipsis_rank - covered, ellipsis_rank)] + list(tail)


def _einsum_output(inputs: list, spec, ellipsis_rank: int) -> list:
    if spec is not None:
        return _einsum_labels(spec, ellipsis_rank + len(spec.replace("...", "")), ellipsis_rank)
    named = [lab for term in inputs for lab in term if isinstance(lab, str)]
    once = sorted(lab for lab in set(named) if named.count(lab) == 1)
    return [("...", k) for k in range(ellipsis_rank)] + once


def _einsum_abstract(*avals, subscripts):
    """The output shape from the subscripts alone (implicit and explicit forms, ellipses)."""
    lhs, _, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(avals):
        raise ShapeError(f"einsum {subscripts!r} names {len(terms)} operands, got {len(avals)}")
    ellipsis_rank = max([a.ndim - len(t.replace("...", "")) for t, a in zip(terms, avals)
                         if "..." in t] + [0])
    inputs = [_einsum_labels(t, a.ndim, ellipsis_rank) for t, a in zip(terms, avals)]
    sizes = {}
    for labels, a in zip(inputs, avals):
        if len(labels) != a.ndim:
            raise ShapeError(f"einsum term {''.join(map(str, labels))!r} does not fit an operand "
                             f"of shape {a.shape}")
        for label, d in zip(labels, a.shape):
            known = sizes.get(label, d)
            if 1 not in (known, d) and known != d:
                raise ShapeError(f"einsum {subscripts!r}: label {label!r} has sizes {known} and {d}")
            sizes[label] = d if known == 1 else known
    output = _einsum_output(inputs, rhs if "->" in subscripts else None, ellipsis_rank)
    shape = tuple(sizes.get(lab, 1) for lab in output)
    return AVal(shape, np.result_type(*[a.dtype for a in avals]))


define("einsum", lambda *xs, subscripts: np.einsum(subscripts, *xs, optimize=True), _einsum_abstract,
       kind="contraction")
define("sort", lambda x, *, dimension: np.sort(x, axis=dimension, kind="stable"),
       lambda a, *, dimension: a.strong(), kind="sorting")
define("argsort", lambda x, *, dimension, index_dtype: np.argsort(x, axis=dimension, kind="stable")
       .astype(index_dtype),
       lambda a, *, dimension, index_dtype: AVal(a.shape, np.dtype(index_dtype)), kind="sorting")
