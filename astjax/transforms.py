"""Transformations as functions: grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian.

A transformed function is a `Transformed`: called inside a function being compiled, it
specialises the function it wraps to core form, transforms that core form and inlines the
result; called from Python, it is compiled once per signature by `jit` and run.
"""
import math
import functools

import numpy as np

from . import control
from .batching import vmap
from .core.axes import replicated_gradient_axes
from .core.bind import Builder, aval, bind, building, current_builder
from .core.hooks import provide
from .core.inline import inline
from .dtypes import float0
from .errors import DtypeError, TransformError
from .frontend.specialize import function_name
from .rewriters import ad
from .staging import Transformed, func_of, interpretable
from .tree_util import tree_flatten, tree_map, tree_unflatten


def _argnums(argnums, nargs) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    return tuple(n % nargs if n < 0 else n for n in nums)


def _with_args(args, nums, values):
    args = list(args)
    for n, v in zip(nums, values):
        args[n] = v
    return args


# ---------------------------------------------------------------- reverse mode
class ValueAndGrad(Transformed):
    def __init__(self, fun, argnums=0, has_aux=False, value=True, holomorphic=False,
                 allow_int=False):
        super().__init__(fun, "value_and_grad" if value else "grad")
        self.argnums, self.has_aux, self.value = argnums, has_aux, value
        self.holomorphic, self.allow_int = holomorphic, allow_int

    def abstract_call(self, *args, **kwargs):
        nums = _argnums(self.argnums, len(args))
        diff = tuple(args[n] for n in nums)
        label = f"{self.kind}({getattr(self.fun, '__name__', 'f')})"
        leaves, diff_tree = tree_flatten(diff)
        wanted = [aval(leaf).dtype.kind in "fc" or not self.allow_int for leaf in leaves]
        _check_float_inputs([leaf for leaf, w in zip(leaves, wanted) if w], label,
                            self.holomorphic)
        target = interpretable(self.fun)
        fun = lambda *d: target(*_with_args(args, nums, d), **kwargs)  # noqa: E731
        func, out_tree, captured = func_of(fun, diff, function_name(self.fun))
        value_atom = _scalar_output(func, out_tree, self.has_aux, label)
        _check_output_dtype(value_atom.aval.dtype, label, self.holomorphic, func.loc)
        vjp = ad.vjp_func(func, wanted + [False] * len(captured))
        seeds = [np.ones((), value_atom.aval.dtype) if o is value_atom else _zeros(o)
                 for o in func.outs if ad.differentiable(o)]
        outs = inline(vjp, leaves + captured + seeds)
        forward, bars = outs[:len(func.outs)], iter(outs[len(func.outs):])
        # (an integer's gradient, with allow_int, is JAX's float0 zeros of its shape)
        grads = tree_unflatten(diff_tree, [_as_jax_types(next(bars), leaf) if w else
                                           np.zeros(aval(leaf).shape, float0)
                                           for leaf, w in zip(leaves, wanted)])
        grads = grads[0] if isinstance(self.argnums, int) else grads
        result = tree_unflatten(out_tree, forward)
        if not self.value:
            return (grads, result[1]) if self.has_aux else grads
        return (result, grads) if not self.has_aux else ((result[0], result[1]), grads)


def _as_jax_types(bar, primal):
    """A gradient as JAX's shard_map types it: inside one (`core/axes.py`), summed over the
    mesh axes along which it varies and its primal does not (vma_sum)."""
    axes = replicated_gradient_axes()
    return bind("vma_sum", bar, primal, axis_names=axes) if axes else bar


def _zeros(atom):
    return np.zeros(aval(atom).shape, aval(atom).dtype)


def _check_float_inputs(diff, name, holomorphic=False):
    for leaf in tree_flatten(diff)[0]:
        dtype = aval(leaf).dtype
        if dtype.kind not in "fc":
            raise DtypeError(
                f"{name} requires real- or complex-valued inputs, but got {dtype.name}",
                hint="differentiate with respect to float arguments (e.g. x.astype(jnp.float32)), "
                     "or move integer arguments out of argnums")
        if holomorphic and dtype.kind != "c":
            raise DtypeError(f"{name} with holomorphic=True requires complex inputs, but got "
                             f"{dtype.name}", hint="pass x.astype(jnp.complex64) (or complex128)")


def _check_output_dtype(dtype, name, holomorphic, loc=None):
    """As JAX: a complex output needs holomorphic=True, which needs a complex output."""
    if dtype.kind == "c" and not holomorphic:
        raise DtypeError(f"{name} requires real-valued outputs, but got {dtype.name}", loc,
                         hint="pass holomorphic=True for holomorphic differentiation, or "
                              "differentiate jnp.real / jnp.abs of the output")
    if holomorphic and dtype.kind != "c":
        raise DtypeError(f"{name} with holomorphic=True requires a complex output, but got "
                         f"{dtype.name}", loc)


def _scalar_output(func, out_tree, has_aux, name):
    if has_aux and (out_tree.kind not in (tuple, list) or len(out_tree.children) != 2):
        raise TransformError(f"{name}(has_aux=True) needs the function to return (value, aux)")
    first = func.outs[0] if func.outs else None
    tree = out_tree.children[0] if has_aux else out_tree
    if first is None or tree.num_leaves != 1 or first.aval.shape != ():
        shape = first.aval.shape if first is not None else "no array"
        raise TransformError(f"{name} needs a function returning a scalar, but it returns "
                             f"{'a pytree' if tree.num_leaves != 1 else f'shape {shape}'}",
                             func.loc, hint="reduce the output (e.g. jnp.sum or jnp.mean), "
                                            "or use jax.vjp / jax.jacrev")
    if first.aval.dtype.kind not in "fc":
        raise DtypeError(f"{name} needs a float output, but it returns {first.aval.dtype.name}",
                         func.loc)
    return first


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    return ValueAndGrad(fun, argnums, has_aux, value=False, holomorphic=holomorphic,
                        allow_int=allow_int)


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    return ValueAndGrad(fun, argnums, has_aux, value=True, holomorphic=holomorphic,
                        allow_int=allow_int)


provide("value_and_grad", value_and_grad)  # for library code differentiating user functions


# ---------------------------------------------------------------- vjp and jvp
def _signature(*names):
    import inspect
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature([inspect.Parameter(n, kind) for n in names])


class _VJPApply(Transformed):
    """(primals, cotangent) -> cotangents of the primals: what vjp's returned function runs."""

    def __init__(self, fun):
        super().__init__(fun, "vjp")
        self.__signature__ = _signature("primals", "cotangent")

    def abstract_call(self, primals, ct):
        func, out_tree, captured = func_of(self.fun, tuple(primals), function_name(self.fun))
        n = len(func.params) - len(captured)
        vjp = ad.vjp_func(func, [ad.differentiable(p) for p in func.params[:n]]
                                + [False] * len(captured))
        ct_leaves = tree_flatten(ct)[0]
        seeds = [_as_dtype_of(c, o) for c, o in zip(ct_leaves, func.outs)
                 if ad.differentiable(o)]
        bars = iter(inline(vjp, tree_flatten(tuple(primals))[0] + captured + seeds)[len(func.outs):])
        primal_leaves = tree_flatten(tuple(primals))[0]
        leaves = [_as_jax_types(next(bars), x) if ad.differentiable(p)
                  else np.zeros(p.aval.shape, p.aval.dtype)
                  for p, x in zip(func.params[:n], primal_leaves)]
        return tree_unflatten(tree_flatten(tuple(primals))[1], leaves)


def _as_dtype_of(ct, out):
    """A cotangent in its output's dtype (a Python 1.0 for a float32 output is float32)."""
    dtype = out.aval.dtype
    if isinstance(ct, (bool, int, float, complex)):
        return np.asarray(ct, dtype)
    return ct if aval(ct).dtype == dtype else bind("convert", ct, dtype=dtype.name)


def vjp(fun, *primals, has_aux=False):
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) -> cotangents of the primals (a tuple)."""
    out = _Apply(fun)(*primals)
    value, aux = (out[0], out[1]) if has_aux else (out, None)
    fun_value = (lambda *a: interpretable(fun)(*a)[0]) if has_aux else fun
    apply = _VJPApply(fun_value if not has_aux else _First(fun))
    vjp_fn = functools.partial(_call_vjp, apply, primals)
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def _call_vjp(apply, primals, ct):
    return apply(tuple(primals), ct)


class _Apply(Transformed):
    """fun itself, compiled (the identity transformation)."""

    def __init__(self, fun):
        super().__init__(fun, "apply")

    def abstract_call(self, *args, **kwargs):
        return interpretable(self.fun)(*args, **kwargs)


class _First(Transformed):
    """fun's first output (the value of a (value, aux) pair)."""

    def __init__(self, fun):
        super().__init__(fun, "value")

    def abstract_call(self, *args):
        return interpretable(self.fun)(*args)[0]


class _JVPApply(Transformed):
    def __init__(self, fun):
        super().__init__(fun, "jvp")
        self.__signature__ = _signature("primals", "tangents")

    def abstract_call(self, primals, tangents):
        func, out_tree, captured = func_of(self.fun, tuple(primals), function_name(self.fun))
        n = len(func.params) - len(captured)
        jvp = ad.jvp_func(func)
        dots = [t for t, p in zip(tree_flatten(tuple(tangents))[0], func.params[:n])
                if ad.differentiable(p)]
        dots += [np.zeros(v.aval.shape, v.aval.dtype) for v in captured
                 if ad.differentiable(v)]
        outs = inline(jvp, tree_flatten(tuple(primals))[0] + captured + dots)
        primal_out, dot_iter = outs[:len(func.outs)], iter(outs[len(func.outs):])
        tangent_out = [next(dot_iter) if ad.differentiable(o)
                       else np.zeros(o.aval.shape, o.aval.dtype) for o in func.outs]
        return tree_unflatten(out_tree, primal_out), tree_unflatten(out_tree, tangent_out)


def jvp(fun, primals, tangents):
    """(fun(*primals), the directional derivative along tangents)."""
    return _JVPApply(fun)(tuple(primals), tuple(tangents))


def linearize(fun, *primals):
    """(fun(*primals), f_jvp): f_jvp(*tangents) is the JVP of fun at primals (JAX's
    linearize; each call of f_jvp runs the forward-mode derivative)."""
    value = _Apply(fun)(*primals)
    return value, functools.partial(_linearized, fun, primals)


def _linearized(fun, primals, *tangents):
    return jvp(fun, primals, tangents)[1]


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of a linear function: transpose_fn(cotangent) -> a tuple of cotangents,
    one per argument shaped as `primals` (arrays or ShapeDtypeStructs). For a linear fun its
    VJP at any point is its transpose: astjax takes it at zero."""
    zeros = tuple(tree_map(lambda p: np.zeros(aval(p).shape, aval(p).dtype), primals))
    apply = _VJPApply(fun)
    return functools.partial(_call_transpose, apply, zeros)


def _call_transpose(apply, zeros, ct):
    return tuple(apply(zeros, ct))


# ---------------------------------------------------------------- Jacobians
class Jacobian(Transformed):
    """jacfwd (a JVP per input basis vector) or jacrev (a VJP per output basis vector): the
    JVP/VJP batched over the rows of an identity matrix with vmap (one vectorised pass), or,
    where a body cannot be batched, a scan over the rows (small code, one row at a time).

    Inputs and outputs may be pytrees, `argnums` a tuple, as in JAX: the result has the
    output's structure, each output leaf holding the inputs' structure of arrays shaped
    (*output_leaf.shape, *input_leaf.shape)."""

    def __init__(self, fun, argnums=0, forward=True, holomorphic=False, has_aux=False):
        super().__init__(fun, "jacfwd" if forward else "jacrev")
        self.argnums, self.forward, self.holomorphic = argnums, forward, holomorphic
        self.has_aux = has_aux

    def abstract_call(self, *args):
        nums = _argnums(self.argnums, len(args))
        x = args[nums[0]] if isinstance(self.argnums, int) else tuple(args[n] for n in nums)
        target = interpretable(self.fun)
        single = isinstance(self.argnums, int)

        def call(v):
            return target(*_with_args(args, nums, (v,) if single else v))

        def fun(v):
            return call(v)[0] if self.has_aux else call(v)

        x_leaves, x_tree = tree_flatten(x)
        out = call(x)  # the value (and aux) once; the derivatives stage `fun` themselves
        y, aux = (out[0], out[1]) if self.has_aux else (out, None)
        y_leaves, y_tree = tree_flatten(y)
        for xl in x_leaves:
            for yl in y_leaves:
                self._check_dtypes(aval(xl).dtype, aval(yl).dtype)
        blocks = self._forward(fun, x, x_leaves, x_tree, y_leaves) if self.forward else \
            self._reverse(fun, x, x_leaves, y_leaves, y_tree)
        jac = tree_unflatten(y_tree, [tree_unflatten(x_tree, row) for row in blocks])
        return (jac, aux) if self.has_aux else jac

    def _forward(self, fun, x, x_leaves, x_tree, y_leaves):
        """blocks[i][j] = d y_i / d x_j, one batched JVP per input leaf."""
        blocks = [[None] * len(x_leaves) for _ in y_leaves]
        for j, xl in enumerate(x_leaves):
            shape = aval(xl).shape
            rows = _eye(math.prod(shape), shape, aval(xl).dtype)

            def column(e, j=j):
                tangent = [e if k == j else _zeros(v) for k, v in enumerate(x_leaves)]
                return tree_flatten(_JVPApply(fun)((x,), (tree_unflatten(x_tree, tangent),))[1])[0]

            cols = _map_rows(column, rows)
            for i, yl in enumerate(y_leaves):
                blocks[i][j] = _move_first_axis_last(cols[i], aval(yl).shape, shape)
        return blocks

    def _reverse(self, fun, x, x_leaves, y_leaves, y_tree):
        """blocks[i][j] = d y_i / d x_j, one batched VJP per output leaf."""
        blocks = []
        for i, yl in enumerate(y_leaves):
            shape = aval(yl).shape
            rows = _eye(math.prod(shape), shape, aval(yl).dtype)

            def row(e, i=i):
                ct = [e if k == i else _zeros(v) for k, v in enumerate(y_leaves)]
                return tree_flatten(_VJPApply(fun)((x,), tree_unflatten(y_tree, ct))[0])[0]

            jac = _map_rows(row, rows)
            blocks.append([bind("reshape", jac[j], new_sizes=tuple(shape) + tuple(aval(xl).shape))
                           for j, xl in enumerate(x_leaves)])
        return blocks

    def _check_dtypes(self, x_dtype, y_dtype):
        """As JAX: jacfwd needs real inputs, jacrev real outputs, unless holomorphic=True
        (then both complex)."""
        name = self.kind
        if self.holomorphic:
            if x_dtype.kind != "c" or y_dtype.kind != "c":
                raise DtypeError(f"{name} with holomorphic=True requires complex inputs and "
                                 f"outputs, got {x_dtype.name} -> {y_dtype.name}")
        elif (x_dtype if self.forward else y_dtype).kind == "c":
            which = "inputs" if self.forward else "outputs"
            raise DtypeError(f"{name} requires real-valued {which}, but got "
                             f"{(x_dtype if self.forward else y_dtype).name}",
                             hint="pass holomorphic=True for holomorphic differentiation")


def _map_rows(fn, rows):
    """fn applied to each row, stacked: batched by vmap, else a scan over the rows."""
    outer = current_builder()
    trial = Builder()
    trial.loc, trial.note = outer.loc, outer.note
    try:
        with building(trial):  # batch into a scratch builder: vmap may refuse
            batched = vmap(fn)(rows)
    except TransformError:
        return control.scan(lambda c, e: (c, fn(e)), 0, rows)[1]
    outer.eqns.extend(trial.eqns)  # it did not: keep what it built
    return batched


def _eye(n, shape, dtype):
    """n identity rows, each shaped like `shape`: (n, *shape)."""
    rows = bind("iota", dtype="int64", shape=(n, n), dimension=0)
    cols = bind("iota", dtype="int64", shape=(n, n), dimension=1)
    eye = bind("convert", bind("eq", rows, cols), dtype=np.dtype(dtype).name)
    return bind("reshape", eye, new_sizes=(n,) + tuple(shape))


def _move_first_axis_last(cols, y_shape, x_shape):
    """(x.size, *y_shape) -> (*y_shape, *x_shape)."""
    k = len(y_shape)
    moved = bind("transpose", cols, permutation=tuple(range(1, k + 1)) + (0,))
    return bind("reshape", moved, new_sizes=tuple(y_shape) + tuple(x_shape))


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    return Jacobian(fun, argnums, forward=True, holomorphic=holomorphic, has_aux=has_aux)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False):
    return Jacobian(fun, argnums, forward=False, holomorphic=holomorphic, has_aux=has_aux)


jacobian = jacrev  # the name JAX keeps for it


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    return jacfwd(jacrev(fun, argnums, holomorphic=holomorphic, has_aux=has_aux), argnums,
                  holomorphic=holomorphic, has_aux=has_aux)
