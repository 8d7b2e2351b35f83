"""Specialising a user function to core form for one abstract signature.

The arguments' pytree structure, dtypes and shapes, and the values of static arguments, fix
everything the interpreter needs; the result is a `Func` whose parameters are the flattened
array arguments followed by arrays read from globals or closures (read afresh at every call).
"""
import inspect
from dataclasses import dataclass

import numpy as np

from ..core.avals import AVal, aval_of
from ..core.bind import Builder, building
from ..core.dims import DimExpr, Symbol
from ..core.ir import Func, Var, as_atom
from ..core.simplify import simplify
from ..rewriters.loops import optimize_scans
from ..errors import AstjaxError, StaticArgumentError
from ..tree_util import tree_flatten, tree_unflatten
from .argnames import leaf_names
from .interpreter import Context, Interpreter, as_interpretable
from .values import UserFunction


def function_name(fn) -> str:
    """A name for fn in generated code and messages (a functools.partial: its function's)."""
    name = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", None) \
        or type(fn).__name__
    return "lambda_" if name == "<lambda>" else "".join(c if c.isalnum() else "_" for c in name)


@dataclass
class Specialized:
    func: Func
    out_tree: object
    out_static: dict          # output leaf index -> static value (not an array; float0 zeros)
    dependencies: list        # (namespace, name, value) read at compile time
    implicit: list            # (namespace, name) of array inputs read from outside
    attribute_reads: dict = None  # attributes of modules and classes read -> their values


def split_arguments(fn, args, kwargs, static_argnums=(), static_argnames=(), sig=None):
    """(bound arguments, names of static parameters) for a call of fn (`sig`: its signature,
    when the caller has it already)."""
    sig = sig or inspect.signature(fn)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise AstjaxError(f"{function_name(fn)}(): {e}") from None
    given = set(bound.arguments)
    if not getattr(fn, "given_arguments_only", False):
        bound.apply_defaults()
    names = list(sig.parameters)
    static = {names[i] for i in static_argnums if i < len(names)} | set(static_argnames)
    static |= {k for k, v in bound.arguments.items() if _never_an_array(v)}
    # A parameter the call leaves to its default keeps it as a Python value, as under JAX's
    # jit, which calls the function with the given arguments alone: `def f(x, axis=1)` sums
    # over a static axis. (An unhashable default, an array, stays an argument.)
    static |= {k for k, v in bound.arguments.items() if k not in given and _hashable(v)}
    return bound, static


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _never_an_array(value) -> bool:
    """Strings, None and functions are static by nature: no need to mark them."""
    return value is None or isinstance(value, (str, bytes, type)) or \
        (callable(value) and not hasattr(value, "shape"))


def dynamic_leaves(bound, static) -> tuple:
    """(flat array leaves of the non-static arguments, their treedef)."""
    return tree_flatten(tuple(v for k, v in bound.arguments.items() if k not in static))


def leaf_hints(fn, bound, static) -> list:
    """A readable name per dynamic leaf: the parameter's name, then its path (params_w1),
    or the name the body unpacks it to (see argnames.py)."""
    names = [k for k in bound.arguments if k not in static]
    return leaf_names(fn, names, [bound.arguments[k] for k in names])


def abstract_leaf(value, hint: str, index: int = 0, symbolic: bool = False):
    """The abstract parameter standing for one array leaf (Python scalars are weakly typed).
    With `symbolic`, each size of 2 or more is a symbol (see core.dims) witnessed by this one."""
    if isinstance(value, (bool, int, float, complex)):
        return Var(aval_of(value), hint)
    if hasattr(value, "__array__"):  # NumPy arrays and scalars, JAX arrays, ...
        aval = aval_of(np.asarray(value))
        if symbolic:
            aval = AVal(tuple(_size(d, hint, index, axis) for axis, d in enumerate(aval.shape)),
                        aval.dtype, aval.weak)
        return Var(aval, hint)
    raise StaticArgumentError(
        f"argument {hint!r} is a {type(value).__name__}, not an array",
        hint="mark it static (static_argnums/static_argnames) or pass an array")


def _size(d: int, hint: str, index: int, axis: int):
    """A symbol for a size that can vary (2 or more); 0 and 1 stay: emptiness and
    broadcasting depend on them."""
    if d < 2:
        return d
    return DimExpr.of(Symbol(f"{hint}.shape[{axis}]", f"{hint}_dim{axis}", d, (index, axis)))


def specialize(fn, bound, static, symbolic: bool = False) -> Specialized:
    leaves, tree = dynamic_leaves(bound, static)
    params = [abstract_leaf(x, h, i, symbolic)
              for i, (x, h) in enumerate(zip(leaves, leaf_hints(fn, bound, static)))]
    abstract = tree_unflatten(tree, params)
    for name, value in zip([k for k in bound.arguments if k not in static], abstract):
        bound.arguments[name] = value
    return _specialized(fn, params, bound.args, bound.kwargs)


def specialize_abstract(fn, params: list) -> Specialized:
    """`fn` specialised to abstract positional arguments given as Vars (their avals may hold
    symbolic sizes): what `astjax transform` compiles from a signature."""
    return _specialized(fn, list(params), tuple(params), {})


def _specialized(fn, params: list, args, kwargs) -> Specialized:
    builder = Builder()
    with Interpreter(Context()) as interp, building(builder):
        callee = as_interpretable(fn)
        result = callee(*args, **kwargs)
    out_leaves, out_tree = tree_flatten(result)
    outs, out_static = [], {}
    for i, leaf in enumerate(out_leaves):
        if isinstance(leaf, (Var, bool, int, float, complex, np.ndarray, np.generic, DimExpr)) \
                and np.dtype(getattr(leaf, "dtype", np.float64)).kind != "V":
            outs.append(as_atom(leaf) if not isinstance(leaf, Var) else leaf)
        else:
            out_static[i] = leaf
    implicit = list(interp.context.implicit.values())
    loc = callee.source.loc() if isinstance(callee, UserFunction) else \
        next((e.loc for e in builder.eqns if e.loc is not None), None)
    func = Func(function_name(fn), params + [v for _, _, v in implicit], builder.eqns, outs, loc)
    return Specialized(_optimized(func), out_tree, out_static,
                       list(interp.context.dependencies.values()),
                       [(ns, name) for ns, name, _ in implicit], interp.context.attribute_reads)


def _optimized(func: Func) -> Func:
    """The clean-ups, then matrix products that need no carry moved out of scans (and the
    clean-ups again for what that leaves unread)."""
    func = simplify(func)
    moved = optimize_scans(func)
    return func if moved is func else simplify(moved)
