"""Derivatives of the indexing primitives: gathers (take, take_along_axis, dynamic_slice)
transpose to scatters and back; updates split their cotangent between the array and the values
written into it."""
import math

from astjax.core.bind import bind
from astjax.errors import TransformError

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
    if mode not in ("set", "add"):
        if all(d is None for d in t):
            return None
        raise TransformError(f"no forward-mode rule for .at[...].{mode}() updates yet")
    x_dot = t[0] if t[0] is not None else zeros_of(x)
    u_dot = t[2] if t[2] is not None else zeros_of(updates)
    return bind("scatter", x_dot, index, u_dot, axis=axis, mode=mode)
