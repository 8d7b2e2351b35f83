"""Array creation: `asarray` (also from nested lists holding abstract values), `zeros`/`ones`/
`full`/`empty` and their `_like` forms, `arange`, `linspace`, `eye`, `tri`.

Dtypes follow NumPy 2: the default float is float64, and a fill value's dtype follows NEP 50;
without `jax_enable_x64` every 64-bit dtype is narrowed to 32 bits as in JAX (in `bind`).
Under compilation every function here records its equations (a constant becomes a `convert` of a
literal), so its result is always an abstract array with the array methods (`.at`, `.sum`...).
"""
import numpy as np

from ..core.array import as_array
from ..core.avals import canonical_value
from ..core.dims import DimExpr
from ..core.prims.elementwise import broadcast_shapes
from . import _util as u
from ._util import bind


# ---------------------------------------------------------------- asarray
def asarray(a, dtype=None, copy=None):
    dtype = None if dtype is None else u.dtype(dtype)
    if u.is_abstract(a):
        return a if dtype in (None, a.dtype) else bind("convert", a, dtype=dtype.name)
    if isinstance(a, (list, tuple)) and _holds_abstract(a):
        return _stack_nested(a, dtype)
    constant = canonical_value(np.asarray(a, dtype))
    if u.current_builder() is None and not copy:
        return as_array(constant)
    return bind("convert", constant, dtype=constant.dtype.name)


def array(object, dtype=None, copy=True, ndmin=0):
    out = asarray(object, dtype, copy=copy)
    missing = ndmin - u.ndim(out)
    if missing > 0:
        out = bind("reshape", out, new_sizes=(1,) * missing + u.shape(out))
    return out


def _holds_abstract(seq) -> bool:
    return any(u.is_abstract(e) or (isinstance(e, (list, tuple)) and _holds_abstract(e))
               for e in seq)


def _leaves(seq):
    for e in seq:
        if isinstance(e, (list, tuple)):
            yield from _leaves(e)
        else:
            yield e


def _stack_nested(seq, dtype):
    """np.array semantics for a nested list with abstract elements: one dtype for all leaves
    (Python scalars count as float64/int64 here, as in np.array), then stacked along axis 0."""
    if dtype is None:
        dtype = np.result_type(*[u.aval(e).dtype for e in _leaves(seq)])
    rows = [asarray(e, dtype) if isinstance(e, (list, tuple)) or u.is_abstract(e)
            else np.asarray(e, dtype) for e in seq]
    shapes = [u.shape(r) for r in rows]
    if any(s != shapes[0] for s in shapes[1:]):  # (==, not a set: sizes may be symbolic)
        raise u.ShapeError(f"array() of rows with different shapes {shapes}",
                           hint="nested lists must be rectangular")
    rows = [bind("reshape", r, new_sizes=(1,) + u.shape(r)) for r in rows]
    return bind("concatenate", *rows, dimension=0)


def astype(x, dtype, copy=False):
    dtype = u.dtype(dtype)
    if u.is_abstract(x) and x.dtype == dtype:
        return x
    return bind("convert", x, dtype=dtype.name)


# ---------------------------------------------------------------- filled arrays
def full(shape, fill_value, dtype=None):
    shape = u.static_shape(shape)
    if isinstance(fill_value, (list, tuple)):
        fill_value = asarray(fill_value)
    dtype = u.dtype(dtype) if dtype is not None else np.result_type(u.aval(fill_value).dtype)
    if u.ndim(fill_value) == 0:
        return bind("full", fill_value, shape=shape, dtype=dtype.name)
    return _broadcast(astype(fill_value, dtype), shape)


def zeros(shape, dtype=None):
    return full(shape, 0, np.float64 if dtype is None else dtype)


def ones(shape, dtype=None):
    return full(shape, 1, np.float64 if dtype is None else dtype)


empty = zeros  # no uninitialised memory in a functional language


def full_like(a, fill_value, dtype=None, shape=None):
    dtype = u.dtype_of(a) if dtype is None else dtype
    return full(u.shape(a) if shape is None else shape, fill_value, dtype)


def zeros_like(a, dtype=None, shape=None):
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    return full_like(a, 1, dtype, shape)


empty_like = zeros_like


# ---------------------------------------------------------------- ranges
def arange(start, stop=None, step=None, dtype=None):
    """Static bounds only: the length of the result is part of its type."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    bounds = [_static_number(v, "arange's bounds") for v in (start, stop, step)]
    length = _arange_length(*bounds)
    kinds = [0 if isinstance(b, DimExpr) else b for b in bounds]  # a symbolic size is an int
    dtype = u.dtype(dtype) if dtype is not None else np.result_type(*kinds)
    counting = np.float64 if dtype.kind in "fc" or np.result_type(*kinds).kind == "f" else np.int64
    out = bind("iota", dtype=np.dtype(counting).name, shape=(length,), dimension=0)
    if bounds[2] != 1:
        out = bind("mul", out, bounds[2])
    if bounds[0] != 0:
        out = bind("add", out, bounds[0])
    return out if out.dtype == dtype else bind("convert", out, dtype=dtype.name)


def _static_number(value, what):
    if u.is_abstract(value):
        raise u.concretization(f"{what} must be static numbers, not array values",
                               hint="use a Python number, or build the range with jnp.arange(n) * "
                                    "step + start where n is static")
    return value.item() if isinstance(value, (np.generic, np.ndarray)) else value


def _arange_length(start, stop, step) -> int:
    if step == 0:
        raise u.ShapeError("arange: step must not be zero")
    if any(isinstance(b, DimExpr) for b in (start, stop)) and isinstance(step, int):
        span = stop - start  # symbolic: ceil(span / step) in integer arithmetic
        return max(0, (span + step - 1) // step if step > 0 else (-span - step - 1) // -step)
    return max(0, int(np.ceil((stop - start) / step)))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    num = u.static_int(num, "linspace's num")
    start, stop = _as_operand(start), _as_operand(stop)
    compute = u.inexact_type_of(start, stop)  # (JAX's: int32 ends give float32)
    div = (num - 1) if endpoint else num
    delta = bind("sub", stop, start)
    grid = _grid(num, compute, u.ndim(delta))
    if div > 0:
        step = bind("div", delta, div)
        out = bind("add", bind("mul", grid, step), start)
    else:  # a single sample: NumPy reports a nan step and returns start
        step = np.full((), np.nan, compute)
        out = bind("add", bind("mul", grid, delta), start)
    if endpoint and num > 1:  # NumPy pins the last sample to stop exactly
        last = bind("eq", grid, num - 1)
        out = bind("select", last, _broadcast_like(stop, out), out)
    out = _finish_linspace(out, dtype, compute, axis)
    return (out, step) if retstep else out


def _as_operand(x):
    return asarray(x) if isinstance(x, (list, tuple)) else x


def _grid(num, compute, extra_dims):
    """0, 1, ..., num-1 along a new leading axis, ready to broadcast against array bounds."""
    shape = (num,) + (1,) * extra_dims
    return bind("iota", dtype=np.dtype(compute).name, shape=shape, dimension=0)


def _broadcast_like(x, like):
    return _broadcast(x, u.shape(like))


def _broadcast(x, shape):
    """x broadcast to `shape` by NumPy's rules (trailing axes aligned)."""
    old = u.shape(x)
    if broadcast_shapes(old, shape) != tuple(shape) or len(old) > len(shape):
        raise u.ShapeError(f"cannot broadcast an array of shape {old} to shape {tuple(shape)}")
    dims = tuple(range(len(shape) - len(old), len(shape)))
    return bind("broadcast_in_dim", x, shape=tuple(shape), broadcast_dimensions=dims)


def _finish_linspace(out, dtype, compute, axis):
    if axis != 0:  # the new leading axis moves to `axis`
        order = list(range(1, u.ndim(out)))
        order.insert(u.normalize_axis(axis, u.ndim(out)), 0)
        out = bind("transpose", out, permutation=tuple(order))
    dtype = compute if dtype is None else u.dtype(dtype)
    if dtype.kind in "iu":  # NumPy floors before casting to an integer dtype
        out = bind("floor", out)
    return out if out.dtype == dtype else bind("convert", out, dtype=dtype.name)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    exponents = linspace(start, stop, num, endpoint, axis=axis)
    out = bind("pow", base, exponents)
    return out if dtype is None else astype(out, dtype)


# ---------------------------------------------------------------- matrices of structure
def tri(N, M=None, k=0, dtype=None):
    """ones on and below the k-th diagonal: row + k >= column (float32 by default, as in JAX
    whatever jax_enable_x64 says)."""
    mask = _diagonal_mask(N, M, k, "ge")
    return astype(mask, np.float32 if dtype is None else dtype)


def eye(N, M=None, k=0, dtype=None):
    mask = _diagonal_mask(N, M, k, "eq")
    return astype(mask, np.float64 if dtype is None else dtype)


def identity(n, dtype=None):
    return eye(n, dtype=dtype)


def _diagonal_mask(N, M, k, compare):
    N = u.static_int(N, "the number of rows")
    M = N if M is None else u.static_int(M, "the number of columns")
    k = u.static_int(k, "the diagonal offset")
    rows = bind("iota", dtype="int64", shape=(N, M), dimension=0)
    cols = bind("iota", dtype="int64", shape=(N, M), dimension=1)
    shifted = bind("add", rows, k) if k else rows
    return bind(compare, shifted, cols)


def tril(m, k=0):
    return _keep_triangle(m, k, "ge")


def triu(m, k=0):
    return _keep_triangle(m, k - 1, "lt")


def _keep_triangle(m, k, compare):
    m = _as_operand(m)
    if u.ndim(m) < 2:
        raise u.ShapeError(f"tril/triu need at least 2 dimensions, got shape {u.shape(m)}")
    n_rows, n_cols = u.shape(m)[-2:]
    mask = _diagonal_mask(n_rows, n_cols, k, compare)
    return bind("select", mask, m, u.zero(u.dtype_of(m)))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """num numbers spaced evenly on a log scale from start to stop (same sign, not 0); the
    ends are exactly start and stop."""
    start, stop = _as_operand(start), _as_operand(stop)
    compute = u.inexact_type_of(start, stop)
    start, stop = (bind("convert", x, dtype=compute.name) for x in (start, stop))
    sign = bind("sign", start)
    lo, hi = (bind("log10", bind("mul", x, sign)) for x in (start, stop))
    out = bind("mul", logspace(lo, hi, num, endpoint, axis=0), sign)
    num = u.static_int(num, "geomspace's num")
    if num > 0:
        out = out.at[0].set(start)
        if endpoint and num > 1:
            out = out.at[-1].set(stop)
    if axis != 0:  # the new axis moved from the front to `axis`
        rank = u.ndim(out)
        axis = u.normalize_axis(axis, rank)
        order = list(range(1, rank))
        order.insert(axis, 0)
        out = bind("transpose", out, permutation=tuple(order))
    return out if dtype is None else astype(out, dtype)


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function called once on the index grids of shape (one array per axis)."""
    shape = u.static_shape(shape)
    grids = [bind("iota", dtype=u.dtype(dtype).name, shape=shape, dimension=i)
             for i in range(len(shape))]
    return function(*grids, **kwargs)
