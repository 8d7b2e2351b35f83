"""Looking at a function without running it: `eval_shape` (the shapes and dtypes of its
results) and `make_jaxpr` (its core form, as data and as printable source).

Both specialise the function to core form on abstract arguments, as `jit` does before it
compiles; nothing is computed. Arguments may be arrays or `ShapeDtypeStruct`s."""
import functools
from dataclasses import dataclass

import numpy as np

from .core.avals import AVal
from .core.printer import print_func
from .staging import func_of, interpretable
from .tree_util import tree_map, tree_unflatten


@dataclass(frozen=True)
class ShapeDtypeStruct:
    """An array's shape and dtype, with no data (what eval_shape returns, and takes)."""
    shape: tuple
    dtype: np.dtype
    sharding: object = None
    weak_type: bool = False

    def __init__(self, shape, dtype, sharding=None, weak_type=False):
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", np.dtype(dtype))
        object.__setattr__(self, "sharding", sharding)
        object.__setattr__(self, "weak_type", weak_type)

    @property
    def aval(self) -> AVal:
        return AVal(self.shape, self.dtype, self.weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


def _abstract(args):
    """Arguments as abstract values: arrays and scalars become ShapeDtypeStructs."""
    def one(x):
        if isinstance(x, ShapeDtypeStruct):
            return x
        array = np.asarray(x)
        return ShapeDtypeStruct(array.shape, array.dtype)
    return tree_map(one, args)


def eval_shape(fun, *args, **kwargs):
    """The ShapeDtypeStructs of fun(*args, **kwargs), found without computing anything."""
    func, out_tree, _ = func_of(fun, _abstract(args), _name(fun), kwargs)
    return _out_shapes(func, out_tree)


def _out_shapes(func, out_tree):
    return tree_unflatten(out_tree, [ShapeDtypeStruct(o.aval.shape, o.aval.dtype)
                                     for o in func.outs])


class CoreForm:
    """A function's core form on given argument shapes: `func` (params, eqns, outs), its
    `in_avals`/`out_avals`, `out_tree`; `str()` prints it as the Python source astjax runs."""

    def __init__(self, func, out_tree):
        self.func, self.out_tree = func, out_tree
        self.source, self.consts = print_func(func)

    @property
    def eqns(self) -> list:
        return self.func.eqns

    @property
    def in_avals(self) -> list:
        return self.func.in_avals

    @property
    def out_avals(self) -> list:
        return self.func.out_avals

    def __str__(self) -> str:
        return self.source

    __repr__ = __str__


def make_jaxpr(fun, static_argnums=(), return_shape=False):
    """A function of example arguments returning fun's core form on their shapes (JAX's
    make_jaxpr; the form printed is astjax's own, runnable Python)."""
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make(*args, **kwargs):
        dynamic = [a for i, a in enumerate(args) if i not in static]

        def bound(*values):
            it = iter(values)
            full = [a if i in static else next(it) for i, a in enumerate(args)]
            return interpretable(fun)(*full, **kwargs)

        func, out_tree, _ = func_of(bound if static else fun, _abstract(tuple(dynamic)),
                                    _name(fun), None if static else kwargs)
        form = CoreForm(func, out_tree)
        if not return_shape:
            return form
        return form, _out_shapes(func, out_tree)
    return make


def _name(fun) -> str:
    return getattr(fun, "__name__", "f").replace("<lambda>", "lambda_")
