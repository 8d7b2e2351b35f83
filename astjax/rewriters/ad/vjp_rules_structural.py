"""Reverse-mode rules for reductions, shape changes, indexing and contractions."""
import numpy as np

from astjax.core.bind import bind
from astjax.errors import TransformError

from .util import (aval, broadcast_to, expand_reduced, extremum_hits, product_of_others,
                      running_source, unbroadcast, zeros_like)
from .vjp_rules import rule


# ---------------------------------------------------------------- reductions
@rule("reduce_sum")
def _reduce_sum(ct, x, out, axes):
    return [expand_reduced(ct, x, axes)]


def _extremum(ct, x, out, axes):
    """The cotangent goes to the places that attain the extremum, split evenly among ties."""
    hit = extremum_hits(x, out, axes)
    share = bind("div", ct, bind("reduce_sum", hit, axes=axes))
    return [bind("mul", hit, expand_reduced(share, x, axes))]


rule("reduce_max")(_extremum)
rule("reduce_min")(_extremum)


@rule("reduce_prod")
def _reduce_prod(ct, x, out, axes):
    return [bind("mul", expand_reduced(ct, x, axes), product_of_others(x, axes))]


@rule("cumsum")
def _cumsum(ct, x, out, axis, reverse=False):
    return [bind("cumsum", ct, axis=axis, reverse=not reverse)]


@rule("cumprod")
def _cumprod(ct, x, out, axis, reverse=False):
    """d out_i / d x_k = out_i / x_k for the k that out_i multiplies in: a division, so a
    zero in x gives a nan cotangent (JAX's is finite there; reduce_prod's rule is)."""
    gathered = bind("cumsum", bind("mul", ct, out), axis=axis, reverse=not reverse)
    return [bind("div", gathered, x)]


def _cum_extremum(ct, x, out, axis, reverse=False):
    source = running_source(x, out, axis, reverse)
    return [bind("take_along_axis_transpose", ct, source, shape=aval(x).shape, axis=axis)]


rule("cummax")(_cum_extremum)
rule("cummin")(_cum_extremum)


for _name in ("argmax", "argmin", "reduce_and", "reduce_or"):
    rule(_name)(lambda ct, x, out, **params: [None])


# ---------------------------------------------------------------- shape
@rule("broadcast_in_dim")
def _broadcast_in_dim(ct, x, out, shape, broadcast_dimensions):
    return [_sum_to(ct, aval(x).shape, broadcast_dimensions)]


def _sum_to(ct, shape, dims):
    """Sum a broadcast result back to `shape`, whose axes sit at `dims` of the result."""
    out_shape = aval(ct).shape
    summed = [i for i in range(len(out_shape)) if i not in dims]
    summed += [d for s, d in zip(shape, dims) if s == 1 and out_shape[d] != 1]
    if summed:
        ct = bind("reduce_sum", ct, axes=tuple(sorted(summed)))
    return bind("reshape", ct, new_sizes=tuple(shape)) if aval(ct).shape != tuple(shape) else ct


rule("reshape")(lambda ct, x, out, new_sizes: [bind("reshape", ct, new_sizes=aval(x).shape)])
rule("transpose")(lambda ct, x, out, permutation: [
    bind("transpose", ct, permutation=tuple(int(i) for i in np.argsort(permutation)))])
rule("rev")(lambda ct, x, out, dimensions: [bind("rev", ct, dimensions=dimensions)])


@rule("slice")
def _slice(ct, x, out, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    config = []
    for size, start, n, step in zip(aval(x).shape, start_indices, aval(out).shape, strides):
        end = start + (n - 1) * step + 1 if n else start
        config.append((start, size - end, step - 1) if n else (start, size - start, 0))
    return [bind("pad", ct, 0.0, config=tuple(config))]


@rule("pad")
def _pad(ct, x, padding_value, out, config):
    """Negative padding cropped the dilated input: pad the cotangent back out, then take
    every (interior + 1)-th element from the low padding on."""
    uncrop = tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in config)
    full = bind("pad", ct, 0.0, config=uncrop) if any(a or b for a, b, _ in uncrop) else ct
    starts = tuple(max(lo, 0) for lo, _, _ in config)
    limits = tuple(s + (n - 1) * (interior + 1) + 1 if n else s
                   for s, (_, _, interior), n in zip(starts, config, aval(x).shape))
    steps = tuple(interior + 1 for _, _, interior in config)
    x_bar = bind("slice", full, start_indices=starts, limit_indices=limits, strides=steps)
    total = bind("reduce_sum", ct, axes=tuple(range(len(aval(ct).shape))))
    inner = bind("reduce_sum", x_bar, axes=tuple(range(len(aval(x_bar).shape))))
    return [x_bar, unbroadcast(bind("sub", total, inner), padding_value)
            if hasattr(padding_value, "aval") else None]


@rule("concatenate")
def _concatenate(ct, *xs, out, dimension):
    bars, start = [], 0
    shape = aval(ct).shape
    for x in xs:
        n = aval(x).shape[dimension]
        starts = tuple(start if i == dimension else 0 for i in range(len(shape)))
        limits = tuple(start + n if i == dimension else d for i, d in enumerate(shape))
        bars.append(bind("slice", ct, start_indices=starts, limit_indices=limits))
        start += n
    return bars


@rule("full")
def _full(ct, value, out, shape, dtype):
    return [unbroadcast(bind("reduce_sum", ct, axes=tuple(range(len(shape)))), value)
            if hasattr(value, "aval") else None]


# ---------------------------------------------------------------- indexing
def _normalised(index, size):
    """The index take() actually used: negative from the end, clamped into range."""
    index = bind("select", bind("lt", index, 0), bind("add", index, size), index)
    return bind("clamp", 0, index, max(size - 1, 0))


def _index_first(ct, axis, index_ndim):
    """take's layout (x dims before axis, index dims, the rest) -> scatter's layout (index dims
    first, then x's other dims in order)."""
    n = len(aval(ct).shape)
    index_dims = list(range(axis, axis + index_ndim))
    rest = [d for d in range(n) if d not in index_dims]
    return bind("transpose", ct, permutation=tuple(index_dims + rest)) if axis else ct


def _take_layout(u, axis, index_ndim):
    """The inverse of _index_first."""
    n = len(aval(u).shape)
    perm = list(range(index_ndim, index_ndim + axis)) + list(range(index_ndim)) + \
        list(range(index_ndim + axis, n))
    return bind("transpose", u, permutation=tuple(perm)) if axis else u


@rule("take")
def _take(ct, x, index, out, axis):
    index = _normalised(index, aval(x).shape[axis])
    updates = _index_first(ct, axis, len(aval(index).shape))
    return [bind("scatter", zeros_like(x), index, updates, axis=axis, mode="add"), None]


@rule("take_along_axis")
def _take_along(ct, x, index, out, axis):
    return [bind("take_along_axis_transpose", ct, index, shape=aval(x).shape, axis=axis), None]


@rule("scatter")
def _scatter(ct, x, index, updates, out, axis, mode):
    if mode not in ("set", "add"):
        raise TransformError(f"no reverse-mode rule for .at[...].{mode}() updates yet")
    size = aval(x).shape[axis]
    wrapped = bind("select", bind("lt", index, 0), bind("add", index, size), index)
    kept = bind("bitwise_and", bind("ge", wrapped, 0), bind("lt", wrapped, size))
    if mode == "set":
        x_bar = bind("scatter", ct, index, 0.0, axis=axis, mode="set")
        kept = bind("bitwise_and", kept, _last_writes(wrapped, size))
    else:
        x_bar = ct
    taken = bind("take", ct, _normalised(index, size), axis=axis)
    u_bar = _index_first(taken, axis, len(aval(index).shape))
    u_bar = bind("mul", u_bar, _expand(bind("convert", kept, dtype=aval(ct).dtype.name), u_bar))
    return [x_bar, None, unbroadcast(u_bar, updates) if hasattr(updates, "aval") else None]


def _last_writes(index, size):
    """Which update positions survive a 'set' scatter (with repeats, the last write wins)."""
    shape = aval(index).shape
    count = int(np.prod(shape, dtype=np.int64))
    flat = bind("reshape", index, new_sizes=(count,))
    order = bind("iota", dtype="int64", shape=(count,), dimension=0)
    writer = bind("scatter", bind("full", -1, shape=(max(size, 1),), dtype="int64"),
                  flat, order, axis=0, mode="set")
    survived = bind("eq", bind("take", writer, bind("clamp", 0, flat, max(size - 1, 0)), axis=0),
                    order)
    return bind("reshape", survived, new_sizes=tuple(shape))


def _expand(mask, like):
    """mask (the index's shape) broadcast over the trailing dims of `like`."""
    extra = len(aval(like).shape) - len(aval(mask).shape)
    return bind("reshape", mask, new_sizes=tuple(aval(mask).shape) + (1,) * extra)


@rule("dynamic_slice")
def _dynamic_slice(ct, x, *starts, out, slice_sizes):
    return [bind("dynamic_update_slice", zeros_like(x), ct, *starts)] + [None] * len(starts)


@rule("dynamic_update_slice")
def _dynamic_update_slice(ct, x, update, *starts, out):
    x_bar = bind("dynamic_update_slice", ct, zeros_like(update), *starts)
    u_bar = bind("dynamic_slice", ct, *starts, slice_sizes=aval(update).shape)
    return [x_bar, u_bar] + [None] * len(starts)


# ---------------------------------------------------------------- contractions
@rule("dot_general")
def _dot_general(ct, a, b, out, dimension_numbers):
    lhs, rhs, result = _subscripts(aval(a).ndim, aval(b).ndim, dimension_numbers)
    return [_einsum_bar(ct, result, [(rhs, b)], lhs, a), _einsum_bar(ct, result, [(lhs, a)], rhs, b)]


def _subscripts(na, nb, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(list(lc) + list(lb), list(rc) + list(rb)):
        sb[j] = sa[i]
    out = ([sa[i] for i in lb] + [s for i, s in enumerate(sa) if i not in tuple(lc) + tuple(lb)]
           + [s for j, s in enumerate(sb) if j not in tuple(rc) + tuple(rb)])
    return "".join(sa), "".join(sb), "".join(out)


def _einsum_bar(ct, result, others, target, x):
    """Cotangent of operand `x` (subscripts `target`) of an einsum with output `result`."""
    present = set(result).union(*[set(s) for s, _ in others])
    kept = "".join(dict.fromkeys(c for c in target if c in present))
    spec = ",".join([result] + [s for s, _ in others]) + "->" + kept
    bar = bind("einsum", ct, *[v for _, v in others], subscripts=spec)
    if kept != target:  # letters only `x` has were summed away: broadcast them back
        bar = broadcast_to(bar, aval(x).shape, [target.index(c) for c in kept])
    return unbroadcast(bar, x)


def _explicit(subscripts: str) -> str:
    """'ij,jk' -> 'ij,jk->ik': NumPy's implicit output (letters seen once, sorted)."""
    if "->" in subscripts:
        return subscripts
    letters = [c for c in subscripts if c.isalpha()]
    return subscripts + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))


@rule("einsum")
def _einsum(ct, *xs, out, subscripts):
    inputs, result = _explicit(subscripts.replace(" ", "")).split("->")
    specs = inputs.split(",")
    if any(len(set(s)) != len(s) or "." in s for s in specs):
        raise TransformError("no reverse-mode rule for einsum with repeated or '...' subscripts",
                             hint="write the contraction with explicit subscripts per axis")
    return [_einsum_bar(ct, result, [(s, v) for j, (s, v) in enumerate(zip(specs, xs)) if j != i],
                        specs[i], x) if hasattr(x, "aval") else None
            for i, x in enumerate(xs)]


@rule("sort")
def _sort(ct, x, out, dimension):
    order = bind("argsort", x, dimension=dimension, index_dtype="int64")
    return [bind("take_along_axis_transpose", ct, order, shape=aval(x).shape, axis=dimension)]


# ---------------------------------------------------------------- no derivative (zero)
for _name in ("eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
              "bitwise_not", "is_finite", "argsort", "iota", "debug_print"):
    rule(_name)(lambda ct, *operands, out, **params: [None] * len(operands))


@rule("take_along_axis_transpose")
def _take_along_transpose(ct, x_ct, index, out, shape, axis):
    return [bind("take_along_axis", ct, index, axis=axis), None]
