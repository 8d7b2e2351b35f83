"""Staging a Python function into core form: what every transformation of the API shares.

`Transformed` is the base of grad, vmap, custom derivatives...: called inside a function being
compiled it inlines its core form (`abstract_call`); called from Python it is compiled once per
signature by `jit` and run. `func_of` specialises a function to core form on abstract arguments
(user functions are interpreted from their source, never run on abstract values).
"""
import functools
import inspect

from .core.bind import aval, current_builder
from .core.build import build_body
from .core.closure import close, free_vars
from .core.ir import Var
from .frontend.argnames import leaf_names
from .frontend.interpreter import as_interpretable
from .frontend.values import UserFunction
from .compiled import JitFunction
from .errors import ConcretizationError
from .tree_util import tree_flatten


class Transformed:
    # A transformation is called with the arguments its caller gave, as in JAX: the wrapped
    # function's defaults are its own (vmap's in_axes=-1 applies to the given arguments only).
    given_arguments_only = True

    def __init__(self, fun, kind: str):
        self.fun, self.kind = fun, kind
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = f"{kind}_{getattr(fun, '__name__', 'f')}".replace("<lambda>", "lambda")
        self._jitted = None

    def __call__(self, *args, **kwargs):
        if current_builder() is not None:
            return self.abstract_call(*args, **kwargs)
        if self._jitted is None:
            self._jitted = JitFunction(self, (), ())
        try:
            return self._jitted(*args, **kwargs)
        except ConcretizationError:
            static = _python_ints(args)
            if not static:
                raise
        # JAX runs a transformation called from Python on concrete values of the arguments it
        # does not transform: an int argument can fix a shape or stop a recursion. astjax
        # compiles them as arrays first (one compilation for all values); where that needs
        # the value, Python ints and bools are compiled as static values from then on.
        self._jitted = JitFunction(self, static, ())
        return self._jitted(*args, **kwargs)

    def identity_parameters(self) -> dict:
        """What besides `fun` decides this transformation's code (see identity.py): its public
        attributes (argnums, in_axes, ...)."""
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and k != "fun"}

    @property
    def source(self) -> str:
        """The generated module of the last compilation (see JitFunction.source)."""
        return (self._jitted or JitFunction(self, (), ())).source

    def abstract_call(self, *args, **kwargs):
        raise NotImplementedError


def _python_ints(args) -> tuple:
    """Positions of the Python ints and bools among args (never differentiated or batched)."""
    return tuple(i for i, a in enumerate(args) if isinstance(a, (bool, int)))


def interpretable(fun):
    """User functions are interpreted from source, never run on abstract values."""
    return as_interpretable(fun)


def func_of(fun, args: tuple, name: str, kwargs=None):
    """(core form of fun on these abstract args, its output treedef, outer Vars it reads).

    The Func's parameters are the leaves of args, then one per captured outer Var."""
    callee = interpretable(fun)
    leaves, in_tree = tree_flatten(args)
    hints = [v.hint if isinstance(v, Var) and v.hint else p
             for v, p in zip(leaves, _argument_paths(fun, args))]
    body = build_body(lambda *a: callee(*a, **(kwargs or {})), in_tree,
                      [aval(x) for x in leaves], hints)
    captured = free_vars(body.params, body.eqns, body.outs)
    func = close(name, body.params, body.eqns, body.outs, captured, _loc_of(fun, body.eqns))
    return func, body.out_tree, captured


def _argument_paths(fun, args: tuple) -> list:
    """A name per leaf of the positional args, as the generated code names them (the
    parameter's name and pytree path, see frontend/argnames.py); positions the signature
    does not name (a *args tail, a builtin) are named by their index."""
    try:
        names = [p.name for p in inspect.signature(fun).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    names += [str(i) for i in range(len(names), len(args))]
    return leaf_names(fun, names[:len(args)], list(args))


def _loc_of(fun, eqns):
    """Where errors about `fun` point: its def line, else its last computed line."""
    target = interpretable(fun)
    if isinstance(target, UserFunction):
        return target.source.loc()
    return next((e.loc for e in reversed(eqns) if e.loc is not None), None)
