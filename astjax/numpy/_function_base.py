"""NumPy's function base: finite differences and integrals (gradient, trapezoid, ediff1d,
unwrap), statistics of pairs (cov, corrcoef), static insert/delete, piecewise, and the
function-mapping helpers (vectorize, apply_along_axis, apply_over_axes)."""
import functools
import re

import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray, full, zeros
from ._elementwise import where
from ._joining import concatenate, stack
from ._linalg_ops import diag, dot
from ._reductions import average, cumsum, diff, sum
from ._shape import atleast_2d, broadcast_shapes, broadcast_to, moveaxis, ravel, reshape, squeeze, transpose
from ._util import bind


def _inexact(*xs):
    xs = [_as_operand(x) for x in xs]
    dtype = u.inexact_type_of(*xs)
    return [x if u.dtype_of(x) == dtype else bind("convert", x, dtype=dtype.name) for x in xs]


def _along(a, axis, start, stop):
    from ._shape import _slice_axis
    n = u.shape(a)[axis]
    start = start + n if start < 0 else start
    stop = n if stop is None else (stop + n if stop < 0 else stop)
    return _slice_axis(a, axis, start, stop)


# ---------------------------------------------------------------- differences and integrals
def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided ones at the edges (NumPy's edge_order=1)."""
    if edge_order is not None and edge_order != 1:
        raise u.DtypeError("gradient: only edge_order=1 is supported")
    a, *spacing = _inexact(f, *varargs)
    rank = u.ndim(a)
    axes = u.normalize_axes(axis, rank) if not isinstance(axis, int) else \
        (u.normalize_axis(axis, rank),)
    if axis is not None and isinstance(axis, (tuple, list)):
        axes = tuple(u.normalize_axis(i, rank) for i in axis)
    if not axes:
        return []
    if min(u.shape(a)[i] for i in axes) < 2:
        raise u.ShapeError("gradient: each axis needs at least 2 elements")
    if len(spacing) == 0:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise u.ShapeError(f"gradient: {len(spacing)} spacings for {len(axes)} axes")
    out = [_gradient_along(a, h, ax) for h, ax in zip(spacing, axes)]
    return out[0] if len(out) == 1 else out


def _gradient_along(a, h, axis):
    first = bind("sub", _along(a, axis, 1, 2), _along(a, axis, 0, 1))
    last = bind("sub", _along(a, axis, -1, None), _along(a, axis, -2, -1))
    if u.ndim(h) == 0:
        inner = bind("div", bind("mul", bind("sub", _along(a, axis, 2, None),
                                             _along(a, axis, 0, -2)), 0.5), h)
        first, last = bind("div", first, h), bind("div", last, h)
    else:
        if u.ndim(h) != 1 or u.shape(h)[0] != u.shape(a)[axis]:
            raise u.ShapeError("gradient: a coordinate array must be 1-D, as long as its axis")
        h = reshape(h, tuple(-1 if i == axis else 1 for i in range(u.ndim(a))))
        first = bind("div", first, bind("sub", _along(h, axis, 1, 2), _along(h, axis, 0, 1)))
        last = bind("div", last, bind("sub", _along(h, axis, -1, None), _along(h, axis, -2, -1)))
        dx1 = bind("sub", _along(h, axis, 1, -1), _along(h, axis, 0, -2))
        dx2 = bind("sub", _along(h, axis, 2, None), _along(h, axis, 1, -1))
        total = bind("add", dx1, dx2)
        wa = bind("neg", bind("div", dx2, bind("mul", dx1, total)))
        wb = bind("div", bind("sub", dx2, dx1), bind("mul", dx1, dx2))
        wc = bind("div", dx1, bind("mul", dx2, total))
        inner = bind("add", bind("add", bind("mul", wa, _along(a, axis, 0, -2)),
                                 bind("mul", wb, _along(a, axis, 1, -1))),
                     bind("mul", wc, _along(a, axis, 2, None)))
    return concatenate([first, inner, last], axis=axis)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along `axis`, with sample points x or a constant spacing dx."""
    if x is None:
        y, dx = _inexact(y, dx)
        y = moveaxis(y, axis, -1)
        return bind("mul", dx, bind("sub", sum(y, -1),
                                    bind("mul", 0.5, bind("add", y[..., 0], y[..., -1]))))
    y, x = _inexact(y, x)
    widths = diff(x) if u.ndim(x) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    heights = bind("add", y[..., 1:], y[..., :-1])
    return bind("mul", 0.5, sum(bind("mul", widths, heights), -1))


def ediff1d(ary, to_end=None, to_begin=None):
    flat = ravel(_as_operand(ary))
    pieces = [diff(flat)]
    dtype = u.dtype_of(pieces[0])
    if to_begin is not None:
        pieces.insert(0, ravel(asarray(to_begin, dtype)))
    if to_end is not None:
        pieces.append(ravel(asarray(to_end, dtype)))
    return concatenate(pieces) if len(pieces) > 1 else pieces[0]


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """p with its jumps larger than discont replaced by their complement modulo period."""
    p = _as_operand(p)
    if u.kind(p) == "c":
        raise u.DtypeError("unwrap: complex input is not supported")
    axis = u.normalize_axis(axis, u.ndim(p))
    dtype = u.result_type_of(p, period)
    p = p if u.dtype_of(p) == dtype else bind("convert", p, dtype=dtype.name)
    if u.shape(p)[axis] == 0:
        return p
    half = bind("floor_divide" if dtype.kind in "iu" else "div", period, 2)
    discont = half if discont is None else discont
    dd = diff(p, axis=axis)
    wrapped = bind("sub", bind("rem", bind("add", dd, half), period), half)
    wrapped = where(bind("bitwise_and", bind("eq", wrapped, bind("neg", half)),
                         bind("gt", dd, 0)), half, wrapped)
    correction = where(bind("lt", bind("abs", dd), discont), 0, bind("sub", wrapped, dd))
    rest = bind("add", _along(p, axis, 1, None), cumsum(correction, axis=axis))
    return concatenate([_along(p, axis, 0, 1), rest], axis=axis)


# ---------------------------------------------------------------- covariance
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    m = _inexact(m)[0]
    if u.ndim(m) > 2:
        raise u.ShapeError("cov: m has more than 2 dimensions")
    X = atleast_2d(m)
    if not rowvar and u.ndim(m) != 1:
        X = transpose(X)
    if u.shape(X)[0] == 0:
        return zeros((0, 0), u.dtype_of(X))
    if y is not None:
        y = _inexact(y)[0]
        Y = atleast_2d(y)
        if not rowvar and u.shape(Y)[0] != 1:
            Y = transpose(Y)
        X, Y = _inexact(X, Y)
        X = concatenate([X, Y], axis=0)
    if dtype is not None:
        X = bind("convert", X, dtype=u.dtype(dtype).name)
    n_vars, n_obs = u.shape(X)
    if n_obs == 0:
        return full(() if n_vars == 1 else (n_vars, n_vars), np.nan, u.dtype_of(X))
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    if fweights is not None:
        w = bind("abs", _as_operand(fweights))
    if aweights is not None:
        aw = bind("abs", _as_operand(aweights))
        w = aw if w is None else bind("mul", w, aw)
    if w is not None:
        w = bind("convert", w, dtype=u.dtype_of(X).name)
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        f = n_obs - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = bind("sub", w_sum, ddof)
    else:
        aw = bind("convert", bind("abs", _as_operand(aweights)), dtype=u.dtype_of(X).name)
        f = bind("sub", w_sum, bind("div", bind("mul", ddof, sum(bind("mul", w, aw))), w_sum))
    X = bind("sub", X, reshape(avg, (-1, 1)))
    X_T = transpose(X if w is None else bind("mul", X, w))
    if u.kind(X_T) == "c":
        X_T = bind("conj", X_T)
    return squeeze(bind("div", dot(X, X_T), f))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if u.ndim(c) == 0:
        return bind("div", c, c)
    d = diag(c)
    stddev = bind("sqrt", bind("real", d) if u.kind(d) == "c" else d)
    if u.kind(c) == "c":
        stddev = bind("convert", stddev, dtype=u.dtype_of(c).name)
    c = bind("div", bind("div", c, reshape(stddev, (-1, 1))), reshape(stddev, (1, -1)))
    if u.kind(c) == "c":
        return bind("complex", bind("clamp", -1.0, bind("real", c), 1.0),
                    bind("clamp", -1.0, bind("imag", c), 1.0))
    return bind("clamp", np.asarray(-1, u.dtype_of(c)), c, np.asarray(1, u.dtype_of(c)))


# ---------------------------------------------------------------- static insert and delete
def _static_index(obj, name):
    if isinstance(obj, slice):
        return obj
    value = u.known_value(obj)
    if value is None:
        raise u.concretization(f"{name}: the indices must be static",
                               hint="use .at[...].set or jnp.where for run-time positions")
    return value


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """arr without the entries at the static indices obj along axis (flattened if None)."""
    arr = _as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = u.normalize_axis(axis, u.ndim(arr))
    positions = np.arange(int(u.shape(arr)[axis]))
    kept = np.delete(positions, _static_index(obj, "delete"))
    from ._selection import take
    return take(arr, asarray(kept), axis=axis)


def insert(arr, obj, values, axis=None):
    """arr with values inserted before the static indices obj (NumPy's rules for their shape)."""
    arr = _as_operand(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = u.normalize_axis(axis, u.ndim(arr))
    values = _as_operand(values)
    values = values if u.dtype_of(values) == u.dtype_of(arr) else \
        bind("convert", values, dtype=u.dtype_of(arr).name)
    size = int(u.size(arr))  # (static: a symbolic size is pinned to this call's)
    # NumPy places the elements; an array of positions stands in for each side: arr's
    # element k is k, values' element k is size + k
    marks = np.insert(np.arange(size).reshape(u.shape(arr)), _static_index(obj, "insert"),
                      (size + np.arange(int(u.size(values)))).reshape(u.shape(values)), axis)
    source = concatenate([ravel(arr), ravel(values)])
    from ._selection import take
    return reshape(take(source, asarray(marks.ravel())), marks.shape)


# ---------------------------------------------------------------- piecewise functions
def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i](x) where condlist[i] holds (the last one wins); an extra function covers
    the rest. Every function runs on all of x, as under jit in JAX."""
    x = _as_operand(x)
    if isinstance(condlist, (list, tuple)):
        conds = [_as_operand(c) for c in condlist]
    else:
        condlist = _as_operand(condlist)
        conds = [condlist] if u.ndim(condlist) == u.ndim(x) and u.ndim(x) > 0 or \
            u.ndim(condlist) == 0 else [condlist[i] for i in range(u.shape(condlist)[0])]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise u.ShapeError(f"piecewise: {len(funclist)} functions for {n} conditions",
                           hint="give one per condition, and optionally one for otherwise")
    out = zeros(u.shape(x), u.dtype_of(x))
    if len(funclist) == n + 1:
        out = _piece(funclist[n], x, args, kw, out)
        funclist = funclist[:n]
    for cond, fn in zip(conds, funclist):
        out = where(cond, _piece(fn, x, args, kw, out), out)
    return out


def _piece(fn, x, args, kw, like):
    value = fn(x, *args, **kw) if callable(fn) else fn
    value = _as_operand(value)
    value = broadcast_to(value, u.shape(x))
    return value if u.dtype_of(value) == u.dtype_of(like) else \
        bind("convert", value, dtype=u.dtype_of(like).name)


# ---------------------------------------------------------------- mapping functions
def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """pyfunc, written for single elements (or core-shaped blocks when `signature` says so,
    as "(n),(n)->()"), applied over the broadcast leading axes by nested vmaps."""
    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        static = {i for i in excluded if isinstance(i, int)}
        static_kw = {k: v for k, v in kwargs.items() if k in excluded}
        mapped_kw = {k: v for k, v in kwargs.items() if k not in excluded}
        names = list(mapped_kw)
        dynamic = [_as_operand(a) for i, a in enumerate(args) if i not in static]
        dynamic += [_as_operand(mapped_kw[k]) for k in names]

        def call(*xs):
            it = iter(xs)
            full_args = [a if i in static else next(it) for i, a in enumerate(args)]
            named = {k: next(it) for k in names}
            return pyfunc(*full_args, **named, **static_kw)

        cores, out_cores = _parse_signature(signature, len(dynamic))
        return _map_leading(call, dynamic, cores, out_cores)
    return wrapped


_DIMS = r"\((?:\w+(?:,\s*\w+)*)?\)"


def _parse_signature(signature, n_args):
    if signature is None:
        return [()] * n_args, None
    text = signature.replace(" ", "")
    match = re.fullmatch(rf"({_DIMS}(?:,{_DIMS})*)->({_DIMS}(?:,{_DIMS})*)", text)
    if match is None:
        raise u.ShapeError(f"vectorize: {signature!r} is not a valid signature",
                           hint="write it as '(m,n),(n)->(m)'")

    def dims(group):
        return [tuple(d for d in part.split(",") if d)
                for part in re.findall(r"\(([^)]*)\)", group)]
    cores = dims(match.group(1))
    if len(cores) != n_args:
        raise u.ShapeError(f"vectorize: the signature has {len(cores)} inputs, the call "
                           f"passes {n_args}")
    return cores, dims(match.group(2))


def _map_leading(call, args, cores, out_cores):
    loops = []
    for a, core in zip(args, cores):
        if u.ndim(a) < len(core):
            raise u.ShapeError(f"vectorize: an input of shape {u.shape(a)} has fewer axes than "
                               f"its core dimensions {core}")
        loops.append(u.shape(a)[:u.ndim(a) - len(core)])
    loop = broadcast_shapes(*loops)
    args = [broadcast_to(a, loop + u.shape(a)[u.ndim(a) - len(core):])
            for a, core in zip(args, cores)]
    if not loop:
        return call(*args)
    if not any(u.is_abstract(a) for a in args) and u.current_builder() is None:
        return _eager_map(call, args, len(loop))
    from ..core.hooks import transformation
    fn = call
    vmap = transformation("vmap")
    for _ in loop:
        fn = vmap(fn)
    return fn(*args)


def _eager_map(call, args, depth):
    """Called from Python on concrete arrays: apply call element by element (as NumPy does)."""
    if depth == 0:
        return call(*args)
    results = [_eager_map(call, [a[i] for a in args], depth - 1)
               for i in range(u.shape(args[0])[0])]
    if isinstance(results[0], tuple):
        return tuple(stack([r[k] for r in results]) for k in range(len(results[0])))
    return stack(results)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to each 1-D slice of arr along axis; its output axes take axis's place."""
    arr = _as_operand(arr)
    rank = u.ndim(arr)
    axis = u.normalize_axis(axis, rank)
    moved = moveaxis(arr, axis, -1)
    out = _map_leading(lambda a: func1d(a, *args, **kwargs), [moved], [("n",)], None)
    out_rank = u.ndim(out) - (rank - 1)
    return moveaxis(out, tuple(range(rank - 1, u.ndim(out))),
                    tuple(range(axis, axis + out_rank))) if out_rank else out


def apply_over_axes(func, a, axes):
    a = _as_operand(a)
    for axis in axes:
        b = func(a, axis)
        if u.ndim(b) == u.ndim(a):
            a = b
        elif u.ndim(b) == u.ndim(a) - 1:
            from ._shape import expand_dims
            a = expand_dims(b, axis)
        else:
            raise u.ShapeError("apply_over_axes: func must keep the rank or drop one axis")
    return a


# ---------------------------------------------------------------- predicates
def isscalar(element):
    """Whether element is a scalar: a Python number or a 0-d array (JAX's meaning)."""
    if isinstance(element, (bool, int, float, complex, np.generic)):
        return True
    return hasattr(element, "shape") and tuple(element.shape) == ()


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


def array_equiv(a1, a2):
    """Whether a1 and a2 broadcast to one shape and are equal there."""
    a1, a2 = _as_operand(a1), _as_operand(a2)
    try:
        broadcast_shapes(u.shape(a1), u.shape(a2))
    except u.ShapeError:
        return np.asarray(False)
    same = bind("eq", a1, a2)
    return bind("reduce_and", same, axes=tuple(range(u.ndim(same))))


def sort_complex(a):
    """a sorted (by real part, then imaginary part), as a complex array."""
    from ._selection import sort
    a = _as_operand(a)
    dtype = np.result_type(u.dtype_of(a), np.complex64)
    out = sort(a, axis=-1)
    return out if u.dtype_of(out) == dtype else bind("convert", out, dtype=dtype.name)


# ---------------------------------------------------------------- products
def matvec(x1, x2, /):
    """Matrix-vector products over broadcast leading axes: (..., m, n) @ (..., n) -> (..., m)."""
    from ._linalg_ops import matmul
    x2 = _as_operand(x2)
    return matmul(x1, reshape(x2, u.shape(x2) + (1,)))[..., 0]


def vecmat(x1, x2, /):
    """Vector-matrix products: conj(x1) (..., m) @ (..., m, n) -> (..., n)."""
    from ._linalg_ops import matmul
    x1 = _as_operand(x1)
    if u.kind(x1) == "c":
        x1 = bind("conj", x1)
    return matmul(reshape(x1, u.shape(x1)[:-1] + (1,) + u.shape(x1)[-1:]), x2)[..., 0, :]


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """NumPy's contraction order for an einsum (computed on the shapes)."""
    stand_ins = [np.empty(u.shape(_as_operand(x)), np.float32) for x in operands]
    return np.einsum_path(subscripts, *stand_ins, optimize="greedy" if optimize == "auto"
                          else optimize)


# ---------------------------------------------------------------- bits in bytes
def packbits(a, axis=None, bitorder="big"):
    """Groups of 8 booleans (non-zeros) packed into uint8, the first bit highest ('big')."""
    a = _as_operand(a)
    if u.kind(a) not in "biu":
        raise u.DtypeError("packbits: a must be an integer or boolean array")
    if bitorder not in ("big", "little"):
        raise u.DtypeError("packbits: bitorder must be 'big' or 'little'")
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    a = moveaxis(bind("convert", bind("ne", a, 0), dtype="uint8"), axis, -1)
    n = u.shape(a)[-1]
    pad = -n % 8
    if pad:
        a = bind("pad", a, np.zeros((), np.uint8), config=((0, 0, 0),) * (u.ndim(a) - 1)
                 + ((0, pad, 0),))
    groups = reshape(a, u.shape(a)[:-1] + ((n + pad) // 8, 8))
    weights = np.array([128, 64, 32, 16, 8, 4, 2, 1] if bitorder == "big"
                       else [1, 2, 4, 8, 16, 32, 64, 128], np.uint8)
    packed = sum(bind("mul", groups, weights), axis=-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    a = _as_operand(a)
    if u.dtype_of(a) != np.uint8:
        raise u.DtypeError("unpackbits: a must be a uint8 array")
    if bitorder not in ("big", "little"):
        raise u.DtypeError("unpackbits: bitorder must be 'big' or 'little'")
    if axis is None:
        a, axis = ravel(a), 0
    axis = u.normalize_axis(axis, u.ndim(a))
    shifts = np.arange(8, dtype=np.uint8)
    shifts = shifts[::-1].copy() if bitorder == "big" else shifts
    bits = bind("bitwise_and", bind("shift_right_logical", reshape(a, u.shape(a) + (1,)),
                                    shifts), np.uint8(1))
    s = u.shape(bits)
    bits = reshape(moveaxis(bits, axis, -2), tuple(d for i, d in enumerate(s[:-1]) if i != axis)
                   + (s[axis] * 8,))
    if count is not None:
        from ._shape import _slice_axis
        total = u.shape(bits)[-1]
        count = count if count >= 0 else total + count
        if count <= total:
            bits = _slice_axis(bits, u.ndim(bits) - 1, 0, max(count, 0))
        else:
            bits = bind("pad", bits, np.zeros((), np.uint8),
                        config=((0, 0, 0),) * (u.ndim(bits) - 1) + ((0, count - total, 0),))
    return moveaxis(bits, -1, axis)
