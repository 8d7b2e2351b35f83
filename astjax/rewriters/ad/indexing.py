"""Derivatives of the indexing primitives: gathers (take, take_along_axis, dynamic_slice)
transpose to scatters and back; updates split their cotangent between the array and the values
written into it."""
import math

from astjax.core.bind import bind

from .rules import VJP, linear, tangent_rule, zeros_of
from .util import aval, unbroadcast, zeros_like


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


@VJP.register("take")
def _take(ct, x, index, out, axis):
    index = _normalised(index, aval(x).shape[axis])
    updates = _index_first(ct, axis, len(aval(index).shape))
    return [bind("scatter", zeros_like(x), index, updates, axis=axis, mode="add"), None]


@VJP.register("take_along_axis")
def _take_along(ct, x, index, out, axis):
    return [bind("take_along_axis_transpose", ct, index, shape=aval(x).shape, axis=axis), None]


@VJP.register("scatter")
def _scatter(ct, x, index, updates, out, axis, mode):
    if mode in COMBINING:
        x_coef, u_coef = COMBINING[mode](x, index, updates, out, axis)
        u_bar = bind("mul", u_coef, _gathered(ct, index, axis))
        return [bind("mul", ct, x_coef), None,
                unbroadcast(u_bar, updates) if hasattr(updates, "aval") else None]
    size = aval(x).shape[axis]
    kept = _kept(index, size)
    if mode == "set":
        x_bar = bind("scatter", ct, index, 0.0, axis=axis, mode="set")
        wrapped = bind("select", bind("lt", index, 0), bind("add", index, size), index)
        kept = bind("bitwise_and", kept, _last_writes(wrapped, size))
    else:
        x_bar = ct
    u_bar = _gathered(ct, index, axis)
    u_bar = bind("mul", u_bar, _expand(bind("convert", kept, dtype=aval(ct).dtype.name), u_bar))
    return [x_bar, None, unbroadcast(u_bar, updates) if hasattr(updates, "aval") else None]


def _kept(index, size):
    """Which updates land inside the array (JAX drops the others)."""
    wrapped = bind("select", bind("lt", index, 0), bind("add", index, size), index)
    return bind("bitwise_and", bind("ge", wrapped, 0), bind("lt", wrapped, size))


def _gathered(v, index, axis):
    """v (shaped as the array) read at each update's target, in the updates' layout."""
    taken = bind("take", v, _normalised(index, aval(v).shape[axis]), axis=axis)
    return _index_first(taken, axis, len(aval(index).shape))


def _extremal(x, index, updates, out, axis):
    """min/max: the result's derivative is shared equally by the values that attain it,
    the array's element and the updates alike (JAX splits ties so)."""
    dtype = aval(out).dtype.name
    at_target = _gathered(out, index, axis)
    kept = bind("convert", _expand(_kept(index, aval(x).shape[axis]), at_target), dtype=dtype)
    won = bind("mul", bind("convert", bind("eq", updates, at_target), dtype=dtype), kept)
    retained = bind("convert", bind("eq", x, out), dtype=dtype)
    winners = bind("add", bind("scatter", zeros_like(x), index, won, axis=axis, mode="add"),
                   retained)
    share = bind("div", 1.0, bind("max", winners, 1.0))
    return bind("mul", retained, share), bind("mul", won, _gathered(share, index, axis))


def _product(x, index, updates, out, axis):
    """mul: out = x * (the product of the updates at each place), so d out / d x is that
    product and d out / d u_k is x times the product of the *other* updates there, computed
    without dividing by a zero u_k (zeros are counted, the nonzero factors multiplied)."""
    dtype = aval(out).dtype.name
    size = aval(x).shape[axis]
    probe = _gathered(x, index, axis)  # the updates' full layout
    kept = bind("convert", _expand(_kept(index, size), probe), dtype=dtype)
    u = bind("add", updates, bind("mul", probe, 0.0))
    is_zero = bind("convert", bind("eq", u, 0.0), dtype=dtype)
    nonzero = bind("select", bind("eq", u, 0.0), bind("full", 1, shape=aval(u).shape, dtype=dtype), u)
    ones = bind("full", 1, shape=aval(x).shape, dtype=dtype)
    zeros = bind("scatter", zeros_like(x), index, is_zero, axis=axis, mode="add")
    factors = bind("scatter", ones, index, nonzero, axis=axis, mode="mul")
    x_coef = bind("select", bind("gt", zeros, 0.0), zeros_like(x), factors)
    zeros_at, factors_at = _gathered(zeros, index, axis), _gathered(factors, index, axis)
    others_if_zero = bind("select", bind("eq", zeros_at, 1.0), factors_at, bind("mul", u, 0.0))
    others_if_not = bind("select", bind("eq", zeros_at, 0.0), bind("div", factors_at, nonzero),
                         bind("mul", u, 0.0))
    others = bind("select", bind("eq", u, 0.0), others_if_zero, others_if_not)
    return x_coef, bind("mul", bind("mul", probe, others), kept)


COMBINING = {"min": _extremal, "max": _extremal, "mul": _product}


def _last_writes(index, size):
    """Which update positions survive a 'set' scatter (with repeats, the last write wins)."""
    shape = aval(index).shape
    count = math.prod(shape)
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


@VJP.register("dynamic_slice")
def _dynamic_slice(ct, x, *starts, out, slice_sizes):
    return [bind("dynamic_update_slice", zeros_like(x), ct, *starts)] + [None] * len(starts)


@VJP.register("dynamic_update_slice")
def _dynamic_update_slice(ct, x, update, *starts, out):
    x_bar = bind("dynamic_update_slice", ct, zeros_like(update), *starts)
    u_bar = bind("dynamic_slice", ct, *starts, slice_sizes=aval(update).shape)
    return [x_bar, u_bar] + [None] * len(starts)


@VJP.register("take_along_axis_transpose")
def _take_along_transpose(ct, x_ct, index, out, shape, axis):
    return [bind("take_along_axis", ct, index, axis=axis), None]


# ---------------------------------------------------------------- forward mode
linear("dynamic_slice", positions=(0,))
linear("dynamic_update_slice", positions=(0, 1))
linear("take", positions=(0,))
linear("take_along_axis", positions=(0,))
linear("take_along_axis_transpose", positions=(0,))


@tangent_rule("scatter")
def _scatter_jvp(p, t, out, axis, mode):
    x, index, updates = p
    x_dot = t[0] if t[0] is not None else zeros_of(x)
    u_dot = t[2] if t[2] is not None else zeros_of(updates)
    if mode in COMBINING:
        if all(d is None for d in t):
            return None
        x_coef, u_coef = COMBINING[mode](x, index, updates, out, axis)
        spread = bind("scatter", zeros_like(x), index, bind("mul", u_coef, u_dot), axis=axis,
                      mode="add")
        return bind("add", bind("mul", x_coef, x_dot), spread)
    return bind("scatter", x_dot, index, u_dot, axis=axis, mode=mode)
