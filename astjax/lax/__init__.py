"""astjax.lax: JAX's `lax` names that are not control flow, with JAX's signatures.

Most are one primitive; where lax's meaning differs from NumPy's it is composed explicitly:
`div`/`rem` on integers round toward zero (C semantics), `round` rounds half away from zero by
default. Control flow (`cond`, `while_loop`, ...) lives in `astjax.control` and is re-exported.
"""
import collections as _collections
import builtins
import enum

import numpy as np

import astjax.numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind
from ..core.prims.collective import group_size

_IN = "promise_in_bounds"  # (indices in range by construction: no masking)


def _unary(prim):
    def fn(x):
        return bind(prim, x)
    fn.__name__ = prim
    return fn


def _binary(prim):
    def fn(x, y):
        return bind(prim, x, y)
    fn.__name__ = prim
    return fn


# ---------------------------------------------------------------- elementwise
neg, sign, floor, ceil, abs, sqrt, rsqrt, cbrt = (_unary(p) for p in (
    "neg", "sign", "floor", "ceil", "abs", "sqrt", "rsqrt", "cbrt"))
exp, exp2, expm1, log, log1p = (_unary(p) for p in ("exp", "exp2", "expm1", "log", "log1p"))
sin, cos, tan, asin, acos, atan = (_unary(p) for p in ("sin", "cos", "tan", "asin", "acos", "atan"))
sinh, cosh, tanh, asinh, acosh, atanh = (_unary(p) for p in (
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh"))
logistic, erf, erfc, erf_inv, lgamma, digamma, is_finite = (_unary(p) for p in (
    "logistic", "erf", "erfc", "erf_inv", "lgamma", "digamma", "is_finite"))
real, imag, conj = (_unary(p) for p in ("real", "imag", "conj"))
complex = _binary("complex")
bitwise_not = _unary("bitwise_not")

add, sub, mul, pow, max, min, atan2, polygamma = (_binary(p) for p in (
    "add", "sub", "mul", "pow", "max", "min", "atan2", "polygamma"))
eq, ne, lt, le, gt, ge = (_binary(p) for p in ("eq", "ne", "lt", "le", "gt", "ge"))
shift_left, shift_right_logical, shift_right_arithmetic = (_binary(p) for p in (
    "shift_left", "shift_right_logical", "shift_right_arithmetic"))
bitwise_and, bitwise_or, bitwise_xor = (_binary(p) for p in (
    "bitwise_and", "bitwise_or", "bitwise_xor"))


def div(x, y):
    """Integer division rounds toward zero, as in C (NumPy's // rounds down)."""
    if jnp.issubdtype(u.result_type_of(x, y), np.inexact):
        return bind("div", x, y)
    quotient = bind("floor_divide", x, y)
    inexact = bind("ne", bind("rem", x, y), 0)
    signs_differ = bind("ne", bind("lt", x, 0), bind("lt", y, 0))
    round_up = bind("bitwise_and", inexact, signs_differ)
    return bind("select", round_up, bind("add", quotient, 1), quotient)


def rem(x, y):
    """The remainder with the sign of the dividend (C's fmod)."""
    return jnp.fmod(x, y)


def square(x):
    return bind("mul", x, x)


def integer_pow(x, y: int):
    return bind("pow", x, u.static_int(y, "integer_pow's exponent"))


def reciprocal(x):
    return bind("div", 1, x)


class RoundingMethod(enum.IntEnum):
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return bind("round", x)
    magnitude = bind("floor", bind("add", bind("abs", x), 0.5))
    return bind("mul", bind("sign", x), magnitude)


def select(pred, on_true, on_false):
    return bind("select", pred, on_true, on_false)


def clamp(min, x, max):
    return bind("clamp", min, x, max)


def convert_element_type(operand, new_dtype):
    return jnp.astype(operand, new_dtype)


def stop_gradient(x):
    """x, through which no derivative flows (applied to every leaf of a pytree)."""
    from ..tree_util import tree_map
    return tree_map(lambda leaf: bind("stop_gradient", leaf), x)


# ---------------------------------------------------------------- structure
def broadcast_in_dim(operand, shape, broadcast_dimensions):
    return bind("broadcast_in_dim", operand, shape=u.static_shape(shape),
                broadcast_dimensions=tuple(broadcast_dimensions))


def broadcast(operand, sizes):
    sizes = u.static_shape(sizes)
    rank = u.ndim(operand)
    return broadcast_in_dim(operand, sizes + u.shape(operand),
                            tuple(range(len(sizes), len(sizes) + rank)))


def reshape(operand, new_sizes, dimensions=None):
    if dimensions is not None:
        operand = transpose(operand, dimensions)
    return bind("reshape", operand, new_sizes=u.static_shape(new_sizes))


def transpose(operand, permutation):
    return bind("transpose", operand, permutation=tuple(permutation))


def rev(operand, dimensions):
    return bind("rev", operand, dimensions=tuple(dimensions))


def slice(operand, start_indices, limit_indices, strides=None):
    return bind("slice", operand, start_indices=tuple(start_indices),
                limit_indices=tuple(limit_indices),
                strides=None if strides is None else tuple(strides))


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    s = u.shape(operand)
    axis = u.normalize_axis(axis, len(s))
    start = _from_end(start_index, s[axis], 0)
    limit = _from_end(limit_index, s[axis], s[axis])
    starts = tuple(start if i == axis else 0 for i in range(len(s)))
    limits = tuple(limit if i == axis else d for i, d in enumerate(s))
    strides = tuple(stride if i == axis else 1 for i in range(len(s)))
    return slice(operand, starts, limits, strides)


def _from_end(index, size, default):
    """lax counts negative static indices from the end."""
    if index is None:
        return default
    return index + size if index < 0 else index


def index_in_dim(operand, index, axis=0, keepdims=True):
    out = slice_in_dim(operand, index, index + 1 if index != -1 else None, 1, axis)
    return out if keepdims else jnp.squeeze(out, axis)


def dynamic_slice(operand, start_indices, slice_sizes):
    return bind("dynamic_slice", operand, *start_indices, slice_sizes=u.static_shape(slice_sizes))


def dynamic_update_slice(operand, update, start_indices):
    return bind("dynamic_update_slice", operand, update, *start_indices)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    s = u.shape(operand)
    axis = u.normalize_axis(axis, len(s))
    starts = [start_index if i == axis else 0 for i in range(len(s))]
    sizes = tuple(slice_size if i == axis else d for i, d in enumerate(s))
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else jnp.squeeze(out, axis)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    axis = u.normalize_axis(axis, u.ndim(operand))
    starts = [start_index if i == axis else 0 for i in range(u.ndim(operand))]
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis):
    if u.ndim(update) != u.ndim(operand):
        update = jnp.expand_dims(update, axis)
    return dynamic_update_slice_in_dim(operand, update, index, axis)


def concatenate(operands, dimension):
    return bind("concatenate", *operands, dimension=dimension)


def pad(operand, padding_value, padding_config):
    return bind("pad", operand, padding_value,
                config=tuple(tuple(int(v) for v in c) for c in padding_config))


def squeeze(array, dimensions):
    return jnp.squeeze(array, tuple(dimensions))


def expand_dims(array, dimensions):
    return jnp.expand_dims(array, tuple(dimensions))


# ---------------------------------------------------------------- creation, products, sorting
def iota(dtype, size):
    return bind("iota", dtype=u.dtype(dtype).name, shape=(int(size),), dimension=0)


def broadcasted_iota(dtype, shape, dimension):
    return bind("iota", dtype=u.dtype(dtype).name, shape=u.static_shape(shape),
                dimension=int(dimension))


def full(shape, fill_value, dtype=None):
    return jnp.full(shape, fill_value, dtype)


def full_like(x, fill_value, dtype=None, shape=None):
    return jnp.full_like(x, fill_value, dtype, shape)


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    return bind("dot_general", lhs, rhs,
                dimension_numbers=(((u.ndim(lhs) - 1,), (0,)), ((), ())))


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    out = bind("dot_general", lhs, rhs, dimension_numbers=numbers)
    return out if preferred_element_type is None else jnp.astype(out, preferred_element_type)


def argmax(operand, axis, index_dtype):
    return bind("argmax", operand, axis=axis, index_dtype=u.dtype(index_dtype).name)


def argmin(operand, axis, index_dtype):
    return bind("argmin", operand, axis=axis, index_dtype=u.dtype(index_dtype).name)


def _reduction(prim):
    def fn(operand, axes):
        return bind(prim, _as_operand(operand), axes=tuple(sorted(axes)))
    fn.__name__ = prim
    return fn


reduce_sum, reduce_prod, reduce_max, reduce_min = (_reduction(p) for p in (
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min"))
reduce_and, reduce_or = _reduction("reduce_and"), _reduction("reduce_or")


def _cumulative(prim):
    def fn(operand, axis=0, reverse=False):
        return bind(prim, operand, axis=u.normalize_axis(axis, u.ndim(operand)), reverse=reverse)
    fn.__name__ = prim
    return fn


cumsum, cumprod, cummax, cummin = (_cumulative(p) for p in ("cumsum", "cumprod", "cummax",
                                                            "cummin"))


# ---------------------------------------------------------------- sorting, windows, scans
def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """Sorted along `dimension`; several operands are sorted together by the first
    `num_keys` of them (lexicographically), as lax.sort does."""
    if not isinstance(operand, (tuple, list)):
        return bind("sort", operand, dimension=u.normalize_axis(dimension, u.ndim(operand)))
    operands = [_as_operand(x) for x in operand]
    axis = u.normalize_axis(dimension, u.ndim(operands[0]))
    order = None
    for key in reversed(operands[:num_keys]):  # least significant key first, stably
        keyed = key if order is None else jnp.take_along_axis(key, order, axis=axis, mode=_IN)
        step = jnp.argsort(keyed, axis=axis, stable=True)
        order = step if order is None else jnp.take_along_axis(order, step, axis=axis,
                                                                      mode=_IN)
    return tuple(jnp.take_along_axis(x, order, axis=axis, mode=_IN) for x in operands)


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    return sort((keys, values), dimension, is_stable, num_keys=1)


def map(f, xs, *, batch_size=None):
    """f applied to each slice of xs along its leading axis (a scan without a carry)."""
    _, ys = scan(lambda carry, x: (carry, f(x)), 0, xs)  # (control's scan, imported below)
    return ys


def associative_scan(fn, elems, reverse=False, axis=0):
    """All prefix combinations of elems along `axis` under the associative fn, in
    O(log n) rounds of whole-array work (the algorithm JAX uses)."""
    from ..tree_util import tree_flatten, tree_unflatten
    flat, tree = tree_flatten(elems)
    flat = [_as_operand(x) for x in flat]
    axis = u.normalize_axis(axis, u.ndim(flat[0]))
    if reverse:
        flat = [jnp.flip(x, axis) for x in flat]

    def combine(a, b):
        out, _ = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        return out

    def take(x, start, stop=None, step=1):
        size = int(u.shape(x)[axis])
        index = [builtins.slice(None)] * u.ndim(x)
        index[axis] = builtins.slice(start, size if stop is None else stop, step)
        return x[tuple(index)]

    def prefixes(xs):
        size = int(u.shape(xs[0])[axis])
        if size < 2:
            return xs
        reduced = combine([take(x, 0, -1, 2) for x in xs], [take(x, 1, None, 2) for x in xs])
        odd = prefixes(reduced)
        if size % 2 == 0:
            even = combine([take(o, 0, -1) for o in odd], [take(x, 2, None, 2) for x in xs])
        else:
            even = combine(odd, [take(x, 2, None, 2) for x in xs])
        even = [jnp.concatenate([take(x, 0, 1), e], axis=axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = prefixes(flat)
    if reverse:
        out = [jnp.flip(x, axis) for x in out]
    return tree_unflatten(tree, out)


def _interleave(a, b, axis):
    """a[0], b[0], a[1], b[1], ... along axis (a has as many elements as b, or one more)."""
    na, nb = int(u.shape(a)[axis]), int(u.shape(b)[axis])
    rank = u.ndim(a)
    config_a = [(0, 0, 0)] * rank
    config_b = [(0, 0, 0)] * rank
    config_a[axis] = (0, 1 if na == nb else 0, 1)
    config_b[axis] = (1, 0 if na == nb else 1, 1)
    zero = np.zeros((), u.dtype_of(a))
    if u.dtype_of(a) == np.bool_:
        return pad(a, zero, config_a) | pad(b, zero, config_b)
    return pad(a, zero, config_a) + pad(b, zero, config_b)


def cumlogsumexp(operand, axis=0, reverse=False):
    return associative_scan(jnp.logaddexp, operand, reverse=reverse, axis=axis)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides,
                  padding, base_dilation=None, window_dilation=None):
    """computation folded over each window (pooling): the operand padded with init_value
    (and spread by base_dilation), then one strided slice per window position, combined."""
    import itertools
    from ..core.prims.convolution import dilate_size
    x = _as_operand(operand)
    rank = u.ndim(x)
    base_dilation = tuple(base_dilation) if base_dilation else (1,) * rank
    window_dilation = tuple(window_dilation) if window_dilation else (1,) * rank
    window = [dilate_size(int(w), d) for w, d in zip(window_dimensions, window_dilation)]
    if isinstance(padding, str):
        padding = padtype_to_pads([int(d) for d in u.shape(x)], window, window_strides, padding)
    config = [(int(lo), int(hi), int(b) - 1) for (lo, hi), b in zip(padding, base_dilation)]
    x = pad(x, init_value, config)
    shape = [int(d) for d in u.shape(x)]
    out_shape = [(s - w) // st + 1 for s, w, st in zip(shape, window, window_strides)]
    result = None
    for offsets in itertools.product(*[range(int(w)) for w in window_dimensions]):
        start = [o * d for o, d in zip(offsets, window_dilation)]
        limit = [s + (n - 1) * st + 1 if n > 0 else s
                 for s, n, st in zip(start, out_shape, window_strides)]
        piece = slice(x, start, limit, tuple(window_strides))
        result = piece if result is None else computation(result, piece)
    return computation(jnp.full(out_shape, init_value, u.dtype_of(x)), result)


# ---------------------------------------------------------------- collectives (named axes)
def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _over_axes(prim, x, axis_name, groups=None, **params):
    """prim over each named axis in turn, on every leaf of the pytree x; with `groups`
    (axis_index_groups), within each group of positions of the one axis."""
    from ..core.axes import axis_size
    from ..core.ir import Var
    from ..tree_util import tree_map
    names = _names(axis_name)
    if groups is not None:
        params["axis_index_groups"] = _groups(groups, names)

    def one(leaf):
        for name in names:
            size = group_size(axis_size(name), groups)
            if prim == "psum" and not isinstance(leaf, Var):  # a constant: the same everywhere
                leaf = leaf * size
            elif prim in ("pmax", "pmin") and not isinstance(leaf, Var):
                continue
            else:
                leaf = bind(prim, leaf, axis_name=name, mapped_size=axis_size(name), **params)
        return leaf
    return tree_map(one, x)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of x over the mapped axis (or axes) `axis_name`: the same in every example
    (with axis_index_groups, the sum over each example's group)."""
    return _over_axes("psum", x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    from ..core.axes import axis_size
    from ..tree_util import tree_map
    count = 1
    for name in _names(axis_name):
        count *= group_size(axis_size(name), axis_index_groups)
    return tree_map(lambda s: s / count, psum(x, axis_name, axis_index_groups=axis_index_groups))


def pmax(x, axis_name, *, axis_index_groups=None):
    return _over_axes("pmax", x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    return _over_axes("pmin", x, axis_name, axis_index_groups)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every example's x (of the example's group), stacked along a new axis `axis`
    (concatenated along it if tiled)."""
    from ..core.axes import axis_size
    from ..tree_util import tree_map
    groups = None if axis_index_groups is None else _groups(axis_index_groups, (axis_name,))
    extra = {} if groups is None else {"axis_index_groups": groups}

    def one(leaf):
        leaf = _as_operand(leaf)
        return bind("all_gather", leaf, axis_name=axis_name, mapped_size=axis_size(axis_name),
                    axis=u.normalize_axis(axis, u.ndim(leaf) + (0 if tiled else 1)),
                    tiled=bool(tiled), **extra)
    return tree_map(one, x)


def ppermute(x, axis_name, perm):
    """Example `dst` receives example `src`'s x for each (src, dst) in perm; others get zeros."""
    from ..core.axes import axis_size
    from ..tree_util import tree_map
    perm = tuple((int(s), int(d)) for s, d in perm)
    size = axis_size(axis_name)
    return tree_map(lambda leaf: bind("ppermute", _as_operand(leaf), axis_name=axis_name,
                                      mapped_size=size, perm=perm), x)


def with_sharding_constraint(x, shardings):
    """x itself: astjax computes on the host, where a sharding constrains nothing."""
    return x


def axis_index(axis_name):
    """This example's position along the mapped axis `axis_name` (int32)."""
    from ..core.axes import axis_size
    return bind("axis_index", axis_name=axis_name, mapped_size=axis_size(axis_name))


def _groups(groups, names) -> tuple:
    """axis_index_groups as a tuple of tuples, checked: equal groups that partition the
    positions of one named axis, as JAX requires."""
    from ..core.axes import axis_size
    from ..errors import TransformError
    if len(names) != 1:
        raise TransformError("axis_index_groups needs a single axis name, not "
                             f"{len(names)}", hint="reduce over one named axis at a time")
    size = axis_size(names[0])
    groups = tuple(tuple(int(i) for i in g) for g in groups)
    if len({len(g) for g in groups}) != 1 or sorted(i for g in groups for i in g) != \
            list(range(size)):
        raise TransformError(f"axis_index_groups {groups} must split the {size} positions of "
                             f"axis {names[0]!r} into groups of one size, each position once",
                             hint="e.g. [[0, 1], [2, 3]] for an axis of 4")
    return groups


from ..control import cond, fori_loop, scan, switch, while_loop  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from .bits import (bitcast_convert_type, clz, mulhi, nextafter,  # noqa: E402,F401
                   population_count, reduce_precision)
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers,  # noqa: E402,F401
                          conv_general_dilated, conv_general_dilated_local,
                          conv_general_dilated_patches, conv_general_permutations,
                          conv_general_shape_tuple, conv_shape_tuple, conv_transpose,
                          conv_transpose_shape_tuple, conv_with_general_padding,
                          padtype_to_pads, reduce_window_shape_tuple)
from .reductions import approx_max_k, approx_min_k, reduce, reduce_xor, top_k  # noqa: E402,F401
from .special import (bessel_i0e, bessel_i1e, betainc, igamma,  # noqa: E402,F401
                      igamma_grad_a, igammac, random_gamma_grad, zeta)
from .slicing import (GatherDimensionNumbers, GatherScatterMode,  # noqa: E402,F401
                      ScatterDimensionNumbers, gather, index_take, scatter, scatter_add,
                      scatter_apply, scatter_max, scatter_min, scatter_mul, scatter_sub)
from .structure import (batch_matmul, broadcast_like, broadcast_shapes,  # noqa: E402,F401
                        broadcast_to_rank, collapse, composite, custom_linear_solve,
                        custom_root, dce_sink, empty, optimization_barrier,
                        platform_dependent, ragged_dot, select_n, shape_as_value, split, stack,
                        stage, tile, unstack)


# ---------------------------------------------------------------- Fourier transform
class FftType(enum.IntEnum):
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def fft(x, fft_type, fft_lengths):
    """The DFT of x's trailing len(fft_lengths) axes (fft_type: a FftType or its name)."""
    name = fft_type.name if isinstance(fft_type, FftType) else str(fft_type).upper()
    if name not in FftType.__members__:
        raise ValueError(f"lax.fft: unknown fft_type {fft_type!r} (one of FFT, IFFT, RFFT, IRFFT)")
    lengths = (fft_lengths,) if isinstance(fft_lengths, int) else tuple(fft_lengths)
    return bind("fft", _as_operand(x), fft_type=name, fft_lengths=tuple(int(n) for n in lengths))
from . import structure as _structure  # noqa: E402

dtype = _structure.dtype  # (a function here; parameters named dtype above shadow it)


class Precision(enum.Enum):
    """The precision a product asks for (astjax computes at the operands' own precision on
    the CPU, whichever is asked)."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):  # (JAX also takes the names as strings: "highest")
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        return None


DotDimensionNumbers = tuple  # ((lhs contracting, rhs contracting), (lhs batch, rhs batch))
ConvGeneralDilatedDimensionNumbers = _collections.namedtuple(
    "ConvGeneralDilatedDimensionNumbers", ["lhs_spec", "rhs_spec", "out_spec"])


def axis_size(axis_name) -> int:
    """The size of the mapped axis `axis_name` (a product for a tuple of names)."""
    from ..core.axes import axis_size as size
    count = 1
    for name in _names(axis_name):
        count *= size(name)
    return count


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The sum over the mapped axis, of which each example keeps its own part along
    `scatter_dimension`: its index there (that dimension is the axis' size), or with `tiled`
    its block of size/n."""
    from ..tree_util import tree_map
    if axis_index_groups is not None:
        raise NotImplementedError("psum_scatter with axis_index_groups")
    count, index = axis_size(axis_name), axis_index(axis_name)

    def one(total):
        dim = u.normalize_axis(scatter_dimension, u.ndim(total))
        size = u.shape(total)[dim]
        if not tiled:
            _check_parts(size, count, "psum_scatter", equal=True)
            return dynamic_index_in_dim(total, index, dim, keepdims=False)
        _check_parts(size, count, "psum_scatter")
        return dynamic_slice_in_dim(total, index * (size // count), size // count, dim)
    return tree_map(one, psum(x, axis_name))


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Each example splits x along `split_axis` into one part per example, sends part j to
    example j, and joins what it receives along `concat_axis`, in the senders' order (without
    `tiled`, split_axis is the axis' size and is replaced by a new axis at concat_axis)."""
    from ..tree_util import tree_map
    if axis_index_groups is not None:
        raise NotImplementedError("all_to_all with axis_index_groups")
    count, index = axis_size(axis_name), axis_index(axis_name)

    def one(leaf):
        leaf = _as_operand(leaf)
        cut = u.normalize_axis(split_axis, u.ndim(leaf))
        size = u.shape(leaf)[cut]
        _check_parts(size, count, "all_to_all", equal=not tiled)
        everyone = all_gather(leaf, axis_name)  # (senders, *x.shape)
        part = size // count
        mine = dynamic_slice_in_dim(everyone, index * part, part, cut + 1)
        if not tiled:  # (senders, ..., 1, ...): the senders' axis moves to concat_axis
            mine = jnp.squeeze(mine, axis=cut + 1)
            return jnp.moveaxis(mine, 0, u.normalize_axis(concat_axis, u.ndim(mine)))
        concat = u.normalize_axis(concat_axis, u.ndim(leaf))
        mine = jnp.moveaxis(mine, 0, concat)  # (..., senders, block, ...) joined
        shape = u.shape(mine)
        return jnp.reshape(mine, shape[:concat] + (shape[concat] * shape[concat + 1],)
                           + shape[concat + 2:])
    return tree_map(one, x)


def _check_parts(size: int, count: int, name: str, equal: bool = False) -> None:
    from ..errors import ShapeError
    if (size != count) if equal else (size % count):
        raise ShapeError(f"{name}: an axis of {size} cannot be split into {count} parts"
                         + (" of one" if equal else ""),
                         hint="use tiled=True for parts of several elements" if equal else
                         "make the axis a multiple of the mapped axis' size")
