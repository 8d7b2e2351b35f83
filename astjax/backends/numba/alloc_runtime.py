"""Allocation, index clipping and transposition for generated kernels, typed and lowered
straight to IR.

`np.empty` and `np.full` inside `@njit` are overloads: the first call of each (shape rank,
dtype) in a process compiles a function of its own (0.04-0.18 s each, 0.45 s of
mlp_value_and_grad's cold compile), and so does a small `@njit` helper such as the gather's
index clip. `x.transpose(axes)` compiles one too, and worse: its permutation of the shape is a
slice assignment, whose error message compiles Numba's string formatting (2 s of the first
kernel in a process that transposes; see copy_runtime.put). These are plain Python functions
(a generated module still runs unjitted, as written) whose Numba typing and lowering are
registered here, so a kernel that calls them compiles nothing else.
"""
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.imputils import impl_ret_borrowed, impl_ret_new_ref, lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer_global, signature
from numba.extending import type_callable
from numba.np.arrayobj import _empty_nd_impl, _parse_shape, make_array, populate_array


def empty(shape, dtype=float):
    """np.empty(shape, dtype) (dtype a NumPy scalar class: np.float32)."""
    return np.empty(shape, dtype)


def full(shape, value, dtype=None):
    """np.full(shape, value, dtype) (without dtype: the value's)."""
    return np.full(shape, value, dtype)


def zeros(shape, dtype=float):
    """np.zeros(shape, dtype)."""
    return np.zeros(shape, dtype)


def clip_index(i, size):
    """JAX's gather rule: a negative index counts from the end, then it is clamped into range."""
    if i < 0:
        i += size
    return min(max(i, 0), max(size - 1, 0))


def transposed(x, axes):
    """x.transpose(axes), a view (`axes` a tuple of constants in generated code)."""
    return x.transpose(axes)


def _array_type(shape, dtype):
    """The C-ordered array type np.empty(shape, dtype) gives, or None."""
    if isinstance(shape, types.Integer):
        ndim = 1
    elif isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape):
        ndim = len(shape)
    else:
        return None
    kind = _element_type(dtype)
    if not isinstance(kind, (types.Number, types.Boolean)):
        return None
    return types.Array(kind, ndim, "C")


def _element_type(dtype):
    """The element type a dtype argument names: a NumPy scalar class or dtype, Python's
    float or nothing (float64, NumPy's default), or a value's own type (full's default)."""
    if dtype is None or getattr(dtype, "typing_key", None) is float:
        return types.float64
    if isinstance(dtype, (types.Number, types.Boolean)):
        return types.unliteral(dtype)
    if isinstance(dtype, types.DType):
        return dtype.dtype
    return getattr(dtype, "instance_type", None)


@type_callable(empty)
def _type_empty(context):
    def typer(shape, dtype=None):
        out = _array_type(shape, dtype)
        return None if out is None else signature(out, shape, *_given(dtype))
    return typer


def _given(*types_):
    return [t for t in types_ if t is not None]


@type_callable(full)
def _type_full(context):
    def typer(shape, value, dtype=None):
        if not isinstance(value, (types.Number, types.Boolean)):
            return None
        out = _array_type(shape, value if dtype is None else dtype)
        return None if out is None else signature(out, shape, value, *_given(dtype))
    return typer


# Bytes our arrays' data is aligned to: a cache line, so a 512-bit vector load never spans two
# (Numba's np.empty aligns to 32). What alignment is worth, measured on an argument (arguments
# keep the caller's): a 512x32 float32 matrix read by a training loop's two products each
# step, 0.36 ms for its 100 steps aligned to 64, 0.43 ms aligned to 16 or 32.
ALIGN = 64


class _Aligned:
    """The target context, but preferring ALIGN for arrays' data (the alignment Numba's array
    allocation asks the context for)."""

    def __init__(self, context):
        self._context = context

    def __getattr__(self, name):
        return getattr(self._context, name)

    def get_preferred_array_alignment(self, dtype):
        return ALIGN


def _allocate(context, builder, sig, args):
    arrtype = sig.return_type
    return _empty_nd_impl(_Aligned(context), builder, arrtype,
                          _parse_shape(context, builder, sig.args[0], args[0]))


@lower_builtin(empty, types.Any)
@lower_builtin(empty, types.Any, types.Any)
def _lower_empty(context, builder, sig, args):
    ary = _allocate(context, builder, sig, args)
    return impl_ret_new_ref(context, builder, sig.return_type, ary._getvalue())


@lower_builtin(full, types.Any, types.Any)
@lower_builtin(full, types.Any, types.Any, types.Any)
def _lower_full(context, builder, sig, args):
    ary = _allocate(context, builder, sig, args)
    value = context.cast(builder, args[1], sig.args[1], sig.return_type.dtype)
    stored = context.get_value_as_data(builder, sig.return_type.dtype, value)
    with cgutils.for_range(builder, ary.nitems) as loop:
        builder.store(stored, cgutils.gep(builder, ary.data, loop.index))
    return impl_ret_new_ref(context, builder, sig.return_type, ary._getvalue())


@type_callable(zeros)
def _type_zeros(context):
    return _type_empty(context)


@lower_builtin(zeros, types.Any)
@lower_builtin(zeros, types.Any, types.Any)
def _lower_zeros(context, builder, sig, args):
    ary = _allocate(context, builder, sig, args)
    cgutils.memset(builder, ary.data, builder.mul(ary.itemsize, ary.nitems), 0)
    return impl_ret_new_ref(context, builder, sig.return_type, ary._getvalue())


@type_callable(clip_index)
def _type_clip_index(context):
    def typer(i, size):
        if isinstance(i, types.Integer) and isinstance(size, types.Integer):
            return signature(types.intp, i, size)
        return None
    return typer


@lower_builtin(clip_index, types.Integer, types.Integer)
def _lower_clip_index(context, builder, sig, args):
    i, size = (context.cast(builder, a, t, types.intp) for a, t in zip(args, sig.args))
    zero = ir.Constant(i.type, 0)
    last = builder.sub(size, ir.Constant(i.type, 1))
    last = builder.select(builder.icmp_signed("<", last, zero), zero, last)
    if not sig.args[0].signed:  # never negative (past 2**63 it reads so as intp): clamp above
        return builder.select(builder.icmp_unsigned(">", i, last), last, i)
    i = builder.select(builder.icmp_signed("<", i, zero), builder.add(i, size), i)
    i = builder.select(builder.icmp_signed("<", i, zero), zero, i)
    return builder.select(builder.icmp_signed(">", i, last), last, i)


@infer_global(transposed)
class _TypeTransposed(AbstractTemplate):
    prefer_literal = True  # (the axes arrive as literals: the view's layout is fixed at compile)

    def generic(self, args, kws):
        x, axes = args
        if kws or not isinstance(x, types.Array) or not isinstance(axes, types.BaseTuple):
            return None
        order = [getattr(t, "literal_value", None) for t in axes]
        if sorted(o for o in order if isinstance(o, int)) != list(range(x.ndim)):
            return None
        return signature(x.copy(layout="A"), x, axes)


@lower_builtin(transposed, types.Array, types.BaseTuple)
def _lower_transposed(context, builder, sig, args):
    x_type, axes = sig.args
    order = [t.literal_value for t in axes]
    x = make_array(x_type)(context, builder, args[0])
    out = make_array(sig.return_type)(context, builder)
    shape = cgutils.unpack_tuple(builder, x.shape, x_type.ndim)
    strides = cgutils.unpack_tuple(builder, x.strides, x_type.ndim)
    populate_array(out, data=x.data, shape=cgutils.pack_array(builder, [shape[j] for j in order]),
                   strides=cgutils.pack_array(builder, [strides[j] for j in order]),
                   itemsize=x.itemsize, meminfo=x.meminfo, parent=x.parent)
    return impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())
