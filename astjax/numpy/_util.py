"""Static helpers shared by the `astjax.numpy` modules.

Everything here works on NumPy arrays, Python scalars and abstract `Var`s alike, and only looks at
shapes and dtypes (static facts). Array math is never done here: it goes through `bind`.
"""
import math
import operator

import numpy as np

from ..core.dims import DimExpr

from ..core import table  # noqa: F401  (fills the primitive table before anything binds)
from ..core.avals import canonical_dtype, result_dtype, to_inexact
from ..core.bind import aval, bind, current_builder, is_abstract  # noqa: F401
from ..errors import ConcretizationError, DtypeError, ShapeError  # noqa: F401  (re-exported)


def shape(x) -> tuple:
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def ndim(x) -> int:
    return len(shape(x))


def size(x) -> int:
    return math.prod(shape(x))


def dtype_of(x) -> np.dtype:
    return aval(x).dtype


def dtype(d) -> np.dtype:
    """A NumPy dtype from anything NumPy accepts (also `jnp.float32`); DtypeError otherwise."""
    try:
        return np.dtype(d)
    except TypeError:
        raise DtypeError(f"{d!r} is not a dtype", hint="use e.g. jnp.float32 or 'int32'") from None


def kind(x) -> str:
    return dtype_of(x).kind


def is_inexact(x) -> bool:
    return kind(x) in "fc"


def result_type_of(*xs) -> np.dtype:
    """The dtype NumPy 2 gives an elementwise operation on xs (Python scalars are weak)."""
    return result_dtype(*[aval(x) for x in xs])[0]


def inexact_type_of(*xs) -> np.dtype:
    """The dtype a float function of xs computes in: their common dtype, an integer or bool
    one as JAX's float for it (avals.to_inexact); Python numbers alone give the default float."""
    dtype, weak = result_dtype(*[aval(x) for x in xs])
    if dtype.kind in "fc":
        return dtype
    return canonical_dtype(np.float64) if weak else to_inexact(dtype)


def zero(d) -> np.ndarray:
    """A 0-d constant of dtype d: a literal that takes part in math without changing dtypes."""
    return np.zeros((), dtype(d))


def one(d) -> np.ndarray:
    return np.ones((), dtype(d))


def normalize_axis(axis, rank: int) -> int:
    try:
        axis = operator.index(axis)
    except TypeError:
        raise ConcretizationError(f"axis must be a static int, not {type(axis).__name__}",
                                  hint="pass the axis as a Python int") from None
    if not -rank <= axis < rank:
        raise ShapeError(f"axis {axis} is out of range for an array of rank {rank}",
                         hint=f"use an axis in [{-rank}, {rank})")
    return axis % rank if rank else 0


def normalize_axes(axis, rank: int) -> tuple:
    """axis=None means all axes; an int or a sequence becomes a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, rank) for a in axis)
        if len(set(axes)) != len(axes):
            raise ShapeError(f"repeated axis in {tuple(axis)}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, rank),)


def static_int(value, what: str) -> int:
    """A Python int from a static value (or a symbolic size, which is static too: see
    core.dims); a ConcretizationError for an abstract one."""
    if isinstance(value, DimExpr):
        return value
    if is_abstract(value):
        raise concretization(f"{what} must be static, but it is an array value known at run time")
    try:
        return operator.index(value)
    except TypeError:
        raise DtypeError(f"{what} must be an integer, not {value!r}") from None


def static_shape(shape_like) -> tuple:
    if isinstance(shape_like, (tuple, list)):
        return tuple(static_int(d, "a shape entry") for d in shape_like)
    return (static_int(shape_like, "a shape"),)


def concretization(message: str, hint: str = None) -> ConcretizationError:
    return ConcretizationError(
        message, hint=hint or "keep the value static (a Python int or a shape), pass it as a "
                              "static argument, or use array operations such as jnp.where")


def known_value(x):
    """x's value when it is known while compiling: a concrete array, or a constant array written
    in the function (`jnp.array([1, 3])` records a `convert` of a literal); else None."""
    if not is_abstract(x):
        return np.asarray(x)
    builder = current_builder()
    for eqn in reversed(builder.eqns if builder is not None else []):
        if any(out is x for out in eqn.outs):
            source = eqn.ins[0] if eqn.prim == "convert" and len(eqn.ins) == 1 else None
            value = getattr(source, "value", None)
            return None if value is None else np.asarray(value).astype(x.dtype)
    return None
