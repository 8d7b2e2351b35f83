"""lax's structural helpers and no-ops: collapse, broadcast_like/_to_rank/_shapes, stack,
unstack, split, tile, select_n, batch_matmul, shape_as_value, empty, dtype, and the
optimisation hints that do nothing here (optimization_barrier, dce_sink, stage, composite,
platform_dependent)."""
import functools
import math

import numpy as np

import astjax.numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind


def collapse(operand, start_dimension, stop_dimension=None):
    """operand with dimensions [start, stop) merged into one."""
    x = _as_operand(operand)
    s = u.shape(x)
    start = u.normalize_axis(start_dimension, len(s)) if s else 0
    stop = len(s) if stop_dimension is None else (stop_dimension + len(s) if stop_dimension < 0
                                                  else stop_dimension)
    return jnp.reshape(x, s[:start] + (math.prod(s[start:stop]),) + s[stop:])


def broadcast_to_rank(x, rank):
    x = _as_operand(x)
    missing = int(rank) - u.ndim(x)
    return x if missing <= 0 else jnp.reshape(x, (1,) * missing + u.shape(x))


def broadcast_like(arr, like_arr):
    return jnp.broadcast_to(arr, u.shape(like_arr))


def broadcast_shapes(*shapes):
    return jnp.broadcast_shapes(*shapes)


def stack(operands, axis=0):
    return jnp.stack(operands, axis)


def unstack(x, axis=0):
    return jnp.unstack(x, axis=axis)


def split(operand, sizes, axis=0):
    """operand cut along axis into pieces of the given sizes (which must add up to its length)."""
    x = _as_operand(operand)
    axis = u.normalize_axis(axis, u.ndim(x))
    sizes = [u.static_int(s, "a split size") for s in sizes]
    if sum(sizes) != u.shape(x)[axis]:
        raise u.ShapeError(f"lax.split: sizes {sizes} do not add up to the axis length "
                           f"{u.shape(x)[axis]}")
    cuts = np.cumsum([0] + sizes)
    from ..numpy._shape import _slice_axis
    return [_slice_axis(x, axis, int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]


def tile(operand, reps):
    return jnp.tile(operand, tuple(reps))


def select_n(which, *cases):
    """cases[which] elementwise: which is a bool (two cases) or an int in [0, len(cases))."""
    if not cases:
        raise u.ShapeError("select_n needs at least one case")
    which = _as_operand(which)
    if len(cases) == 1:
        return cases[0]
    if u.kind(which) == "b":
        if len(cases) != 2:
            raise u.ShapeError("select_n with a boolean selector takes exactly two cases")
        return bind("select", which, cases[1], cases[0])
    out = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        out = bind("select", bind("eq", which, i), cases[i], out)
    return out


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over matching leading (batch) dimensions."""
    if u.ndim(lhs) < 2 or u.ndim(lhs) != u.ndim(rhs):
        raise u.ShapeError("batch_matmul: operands need the same rank, at least 2")
    return jnp.matmul(lhs, rhs)


def shape_as_value(shape):
    return jnp.asarray(np.asarray([int(d) for d in shape], np.int64))


def empty(shape, dtype, *, out_sharding=None):
    return jnp.zeros(shape, dtype)


def dtype(x, *, canonicalize=False):
    return jnp.asarray(x).dtype if isinstance(x, (list, tuple)) else u.dtype_of(_as_operand(x)) \
        if hasattr(x, "dtype") or isinstance(x, (bool, int, float, complex)) else np.dtype(x)


def optimization_barrier(operand, /):
    """Its operand: the compilers here do not move work across it anyway."""
    return operand


def dce_sink(val, *, prevent_mlir_dce=False):
    return None


def stage(x, /):
    return x


def composite(decomposition, name, version=0):
    """The decomposition itself (the name marks it for XLA; nothing here needs the mark)."""
    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        return decomposition(*args, **kwargs)
    return call


def platform_dependent(*args, default=None, **per_platform):
    """The CPU variant (astjax runs on the CPU), else the default."""
    fn = per_platform.get("cpu", default)
    if fn is None:
        raise u.DtypeError("platform_dependent: no variant for 'cpu' and no default")
    return fn(*args)


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """solve(matvec, b). Derivatives flow through the solver itself (JAX differentiates the
    linear system implicitly instead; the two agree where the solver has converged)."""
    return solve(matvec, b)


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """solve(f, initial_guess), differentiated through the solver's own steps (JAX uses the
    implicit function theorem; the two agree at a converged root)."""
    return solve(f, initial_guess)


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """Grouped matrix products: consecutive row groups of lhs (m, k), of the given sizes, each
    times its own rhs[g] (k, n); rows after the last group are zero."""
    if group_offset is not None:
        raise u.DtypeError("ragged_dot: group_offset is not supported")
    lhs, rhs, sizes = (_as_operand(v) for v in (lhs, rhs, group_sizes))
    ends = jnp.cumsum(sizes)
    starts = ends - sizes
    rows = bind("iota", dtype=u.dtype_of(ends).name, shape=(u.shape(lhs)[0],), dimension=0)
    member = (rows[None, :] >= starts[:, None]) & (rows[None, :] < ends[:, None])  # (g, m)
    products = jnp.einsum("mk,gkn->gmn", lhs, rhs)
    out = jnp.sum(jnp.where(member[:, :, None], products, 0), axis=0)
    return out if preferred_element_type is None else jnp.astype(out, preferred_element_type)
