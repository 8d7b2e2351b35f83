"""`vmap`: a function of one example turned into a function of a batch, by transforming its
core form (`rewriters/vmap.py`), never by running it per example.

    vmap(fun, in_axes=0, out_axes=0, axis_size=None, axis_name=None)

`in_axes` is an int (negative counts from the end), None (not batched), or a tuple with one
entry per positional argument, each entry itself an int, None or a pytree prefix of that
argument (as in JAX). Keyword arguments are not batched. `out_axes` is the same for the output.
Inside a function being compiled a VMap builds the function's core form for one example (batch
axes moved to the front and dropped), batches it and inlines it; called from Python it is
compiled once per signature by `jit`.
"""
import inspect

import numpy as np

from .core.avals import AVal
from .core.axes import named_axis
from .core.bind import aval, bind, current_builder
from .core.hooks import provide
from .core.inline import inline
from .core.ir import Var
from .errors import ShapeError, TransformError
from .rewriters.batching import batch_func
from .rewriters.batching.util import batching_axis
from .staging import Transformed, func_of, interpretable
from .tree_util import leaf_paths, tree_flatten, tree_structure, tree_unflatten


class VMap(Transformed):
    def __init__(self, fun, in_axes=0, out_axes=0, axis_size=None, axis_name=None):
        super().__init__(fun, "vmap")
        if isinstance(in_axes, list):  # JAX accepts a list for the top-level tuple
            in_axes = tuple(in_axes)
        self.in_axes, self.out_axes, self.axis_size = in_axes, out_axes, axis_size
        self.axis_name = axis_name
        self.processes = 1  # a pmap across processes: this process maps 1/processes of the axis
        self._keyword_variants: dict = {}

    def __call__(self, *args, **kwargs):
        if kwargs and current_builder() is None:
            return self._call_with_keywords(args, kwargs)
        return super().__call__(*args, **kwargs)

    def _call_with_keywords(self, args, kwargs):
        """jit binds keyword arguments to positions; give those positions in_axes None."""
        bound = inspect.signature(self.fun).bind(*args, **kwargs)
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(args)
        if len(axes) != len(args):
            _in_axes(self.in_axes, args)  # raises the error about the count
        axes = axes + (None,) * (len(bound.args) - len(args))
        inner = self._keyword_variants.get(axes)
        if inner is None:
            inner = self._keyword_variants[axes] = VMap(self.fun, axes, self.out_axes,
                                                        self.axis_size, self.axis_name)
        result = Transformed.__call__(inner, *bound.args, **bound.kwargs)
        self._jitted = inner._jitted
        return result

    def abstract_call(self, *args, **kwargs):
        leaves, in_tree = tree_flatten(args)
        names = _leaf_names(self.fun, args)
        axes = [_normalise(a, _ndim(x), n, "in_axes")
                for a, x, n in zip(_in_axes(self.in_axes, args), leaves, names)]
        size = _axis_size(leaves, axes, names, self.axis_size)
        moved = [x if a in (None, 0) else _to_front(x, a) for x, a in zip(leaves, axes)]
        examples = [_one_example(x, n) if a is not None else x
                    for x, a, n in zip(moved, axes, names)]
        static = [a is None and not isinstance(x, (Var, np.ndarray)) for x, a in zip(leaves, axes)]
        target = interpretable(self.fun)

        def one_example(*dynamic):  # static leaves (Python values) stay Python values
            it = iter(dynamic)
            full = [x if s else next(it) for x, s in zip(examples, static)]
            return target(*tree_unflatten(in_tree, full), **kwargs)

        dynamic = [x for x, s in zip(examples, static) if not s]
        with named_axis(self.axis_name, size * self.processes):  # collectives read its size
            func, out_tree, captured = func_of(one_example, tuple(dynamic),
                                               getattr(self.fun, "__name__", "f"))
        out_axes = _broadcast_prefix(self.out_axes, tree_unflatten(out_tree, [0] * len(func.outs)),
                                     "out_axes")
        batched = [a is not None for a, s in zip(axes, static) if not s] + [False] * len(captured)
        with batching_axis(self.axis_name, self.processes):
            body, out_b = batch_func(func, batched, size, force=[a is not None for a in out_axes])
        _check_unbatched_outputs(out_b, out_axes)
        outs = inline(body, [x for x, s in zip(moved, static) if not s] + captured)
        outs = [_from_front(o, a) for o, a in zip(outs, out_axes)]
        return tree_unflatten(out_tree, outs)


def vmap(fun, in_axes=0, out_axes=0, axis_size=None, axis_name=None):
    """fun mapped over an axis of its arguments (see the module docstring); with `axis_name`,
    collectives in fun (`lax.psum(x, axis_name)`, ...) act across the mapped examples."""
    return VMap(fun, in_axes, out_axes, axis_size, axis_name)


# ---------------------------------------------------------------- axes specifications
def _in_axes(in_axes, args) -> list:
    """One axis (or None) per leaf of args."""
    if in_axes is None or isinstance(in_axes, int):
        return _broadcast_prefix(in_axes, args, "in_axes")
    if not isinstance(in_axes, tuple):
        raise TransformError(f"vmap in_axes must be an int, None or a tuple, not "
                             f"{type(in_axes).__name__}",
                             hint="give one entry per positional argument, e.g. in_axes=(None, 0)")
    if len(in_axes) != len(args):
        raise TransformError(
            f"vmap in_axes has {len(in_axes)} entries but the function is called with "
            f"{len(args)} positional argument{'s' if len(args) != 1 else ''}",
            hint="give one entry per positional argument (None for arguments not batched)")
    return [a for spec, arg in zip(in_axes, args) for a in _broadcast_prefix(spec, arg, "in_axes")]


def _broadcast_prefix(spec, value, what: str) -> list:
    """`spec` (an int/None, or a pytree prefix of `value` with int/None leaves) per leaf."""
    if spec is None or isinstance(spec, int):
        return [spec] * tree_structure(value).num_leaves
    spec_kids, spec_tree = _children(spec)
    value_kids, value_tree = _children(value)
    if spec_tree != value_tree:
        raise TransformError(f"vmap {what} {spec!r} does not match the structure "
                             f"{tree_structure(value)} it applies to",
                             hint=f"give {what} the same tuple/dict structure, or one int/None")
    return [a for s, v in zip(spec_kids, value_kids) for a in _broadcast_prefix(s, v, what)]


def _children(tree) -> tuple:
    """The direct children of a pytree node and the node's structure with them as leaves."""
    return tree_flatten(tree, is_leaf=lambda x: x is not tree)


def _normalise(axis, ndim: int, name: str, what: str):
    if axis is None:
        return None
    if not -ndim <= axis < ndim:
        raise ShapeError(f"vmap {what}={axis} is out of range for {name}, which has "
                         f"{ndim} dimension{'s' if ndim != 1 else ''}",
                         hint="use an axis in range, or None to leave the argument unbatched")
    return axis % ndim


def _ndim(x) -> int:
    return aval(x).ndim if isinstance(x, (Var, np.ndarray, np.generic, bool, int, float,
                                          complex)) else 0


def _leaf_names(fun, args) -> list:
    """A readable name per leaf: the parameter's name, plus the path inside a pytree."""
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, arg in enumerate(args):
        base = params[i] if i < len(params) else f"argument {i}"
        names += [f"{base}[{p}]" if p else base for p in leaf_paths(arg)]
    return names


def _axis_size(leaves, axes, names, axis_size) -> int:
    sizes = [(aval(x).shape[a], n, a) for x, a, n in zip(leaves, axes, names) if a is not None]
    if axis_size is not None:
        sizes.insert(0, (int(axis_size), "axis_size", None))
    if not sizes:
        raise TransformError("vmap needs at least one batched argument, or axis_size",
                             hint="set in_axes for an argument, or pass axis_size=N")
    first_size, first_name, first_axis = sizes[0]
    for size, name, axis in sizes[1:]:
        if size != first_size:
            raise ShapeError(f"vmap got different batch sizes: {_where(first_name, first_axis)} "
                             f"has size {first_size} but {_where(name, axis)} has size {size}",
                             hint="every batched argument needs the same size along its in_axes")
    return first_size


def _where(name, axis) -> str:
    return name if axis is None else f"{name} (axis {axis})"


# ---------------------------------------------------------------- moving the batch axis
def _to_front(x, axis: int):
    ndim = aval(x).ndim
    order = (axis,) + tuple(i for i in range(ndim) if i != axis)
    return bind("transpose", x, permutation=order)


def _one_example(x, name: str) -> Var:
    """A stand-in for one example of x (its batch axis, now first, dropped)."""
    a = aval(x)
    hint = x.hint if isinstance(x, Var) and x.hint else name
    return Var(AVal(tuple(a.shape[1:]), a.dtype, a.weak), hint)


def _from_front(x, axis):
    if axis is None:
        return x
    ndim = aval(x).ndim
    axis = _normalise(axis, ndim, "the output", "out_axes")
    if axis == 0:
        return x
    order = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, ndim))
    return bind("transpose", x, permutation=order)


def _check_unbatched_outputs(out_b, out_axes) -> None:
    for i, (b, a) in enumerate(zip(out_b, out_axes)):
        if b and a is None:
            raise TransformError(f"vmap out_axes is None for output {i}, but that output "
                                 "depends on the batched arguments",
                                 hint="give it an out_axes entry (e.g. 0), or compute it from "
                                      "unbatched arguments only")


provide("vmap", vmap)  # for library code that batches user functions (jnp.vectorize)
