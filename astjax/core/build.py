"""Building a nested body (a branch, a loop body) by calling a Python callable on fresh Vars.

The callable is either astjax's own library code or a user function that the interpreter
evaluates from its source; user code is never executed here.
"""
from dataclasses import dataclass

from ..tree_util import tree_flatten, tree_unflatten
from .bind import Builder, building, current_builder
from .ir import Lit, Var, as_atom


@dataclass
class Body:
    """A body before closing: its parameters, equations and flattened outputs."""
    params: list
    eqns: list
    outs: list          # atoms
    out_tree: object


def build_body(fn, in_tree, in_avals, hints=None) -> Body:
    hints = list(hints or []) + [""] * (len(in_avals) - len(hints or []))
    params = [Var(a, h) for a, h in zip(in_avals, hints)]
    outer = current_builder()
    builder = Builder()
    builder.loc = outer.loc if outer is not None else None
    with building(builder):
        result = fn(*tree_unflatten(in_tree, params))
    leaves, out_tree = tree_flatten(result)
    return Body(params, builder.eqns, [_atom(x) for x in leaves], out_tree)


def _atom(x):
    if isinstance(x, (Var, Lit)) or type(x).__name__ == "Missing":
        return x
    try:
        return as_atom(x)
    except TypeError:
        from ..errors import TransformError
        raise TransformError(f"a branch or loop body returned {type(x).__name__} {x!r}, "
                             "which is not an array", hint="return arrays or scalars only") \
            from None
