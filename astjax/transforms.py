"""Transformations as functions: grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian.

A transformed function is a `Transformed`: called inside a function being compiled, it
specialises the function it wraps to core form, transforms that core form and inlines the
result; called from Python, it is compiled once per signature by `jit` and run.
"""
import functools

import numpy as np

from .core.bind import aval, bind, current_builder
from .core.build import build_body
from .core.closure import close, free_vars
from .core.inline import inline
from .core.ir import Var
from .errors import DtypeError, TransformError
from .tree_util import leaf_paths, tree_flatten, tree_unflatten


class Transformed:
    def __init__(self, fun, kind: str):
        self.fun, self.kind = fun, kind
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = f"{kind}_{getattr(fun, '__name__', 'f')}".replace("<lambda>", "lambda")
        self._jitted = None

    def __call__(self, *args, **kwargs):
        if current_builder() is not None:
            return self.abstract_call(*args, **kwargs)
        if self._jitted is None:
            from .jit import JitFunction
            self._jitted = JitFunction(self, (), (), "numpy")
        return self._jitted(*args, **kwargs)

    @property
    def source(self) -> str:
        """The generated module of the last compilation (see JitFunction.source)."""
        from .jit import JitFunction
        return (self._jitted or JitFunction(self, (), (), "numpy")).source

    def abstract_call(self, *args, **kwargs):
        raise NotImplementedError


def interpretable(fun):
    """User functions are interpreted from source, never run on abstract values."""
    from .frontend.interpreter import as_interpretable
    return as_interpretable(fun)


def func_of(fun, args: tuple, name: str, kwargs=None):
    """(core form of fun on these abstract args, its output treedef, outer Vars it reads).

    The Func's parameters are the leaves of args, then one per captured outer Var."""
    callee = interpretable(fun)
    leaves, in_tree = tree_flatten(args)
    hints = [v.hint if isinstance(v, Var) and v.hint else p for v, p in zip(leaves, leaf_paths(args))]
    body = build_body(lambda *a: callee(*a, **(kwargs or {})), in_tree,
                      [aval(x) for x in leaves], hints)
    captured = free_vars(body.params, body.eqns, body.outs)
    return close(name, body.params, body.eqns, body.outs, captured), body.out_tree, captured


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
    def __init__(self, fun, argnums=0, has_aux=False, value=True):
        super().__init__(fun, "value_and_grad" if value else "grad")
        self.argnums, self.has_aux, self.value = argnums, has_aux, value

    def abstract_call(self, *args, **kwargs):
        from .rewriters import autodiff
        nums = _argnums(self.argnums, len(args))
        diff = tuple(args[n] for n in nums)
        _check_float_inputs(diff, self.__name__)
        target = interpretable(self.fun)
        fun = lambda *d: target(*_with_args(args, nums, d), **kwargs)  # noqa: E731
        func, out_tree, captured = func_of(fun, diff, self.fun.__name__)
        value_atom = _scalar_output(func, out_tree, self.has_aux, self.__name__)
        n_diff = len(func.params) - len(captured)
        vjp = autodiff.vjp_func(func, [True] * n_diff + [False] * len(captured))
        seeds = [np.ones((), value_atom.aval.dtype) if o is value_atom else _zeros(o)
                 for o in func.outs if autodiff.differentiable(o)]
        outs = inline(vjp, tree_flatten(diff)[0] + captured + seeds)
        forward, bars = outs[:len(func.outs)], outs[len(func.outs):]
        grads = tree_unflatten(tree_flatten(diff)[1], bars)
        grads = grads[0] if isinstance(self.argnums, int) else grads
        result = tree_unflatten(out_tree, forward)
        if not self.value:
            return (grads, result[1]) if self.has_aux else grads
        return (result, grads) if not self.has_aux else ((result[0], result[1]), grads)


def _zeros(atom):
    return np.zeros(atom.aval.shape, atom.aval.dtype)


def _check_float_inputs(diff, name):
    for leaf in tree_flatten(diff)[0]:
        dtype = aval(leaf).dtype
        if dtype.kind not in "fc":
            raise DtypeError(
                f"{name} requires real- or complex-valued inputs, but got {dtype.name}",
                hint="differentiate with respect to float arguments (e.g. x.astype(jnp.float32)), "
                     "or move integer arguments out of argnums")


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


def grad(fun, argnums=0, has_aux=False):
    return ValueAndGrad(fun, argnums, has_aux, value=False)


def value_and_grad(fun, argnums=0, has_aux=False):
    return ValueAndGrad(fun, argnums, has_aux, value=True)
