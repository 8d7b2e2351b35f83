"""Building a nested body (a branch, a loop body) by calling a Python callable on fresh Vars.

The callable is either astjax's own library code or a user function that the interpreter
evaluates from its source; user code is never executed here.
"""
from dataclasses import dataclass

from ..tree_util import tree_flatten, tree_unflatten
from .avals import AVal
from .bind import Builder, aval, bind, building, current_builder
from .closure import close, free_vars
from .ir import MISSING, Func, Lit, Var, as_atom


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
    if isinstance(x, (Var, Lit)) or x is MISSING:
        return x
    try:
        return as_atom(x)
    except TypeError:
        from ..errors import TransformError
        raise TransformError(f"a branch or loop body returned {type(x).__name__} {x!r}, "
                             "which is not an array", hint="return arrays or scalars only") \
            from None


def scan_of(step, carry: list, xs: list, *, reverse=False, length=None, names=(),
            x_names=()) -> tuple:
    """(final carry, stacked ys) of a scan built from a Python `step` over flat lists:
    `step(carry, x) -> (new carry, ys)`, each a list of atoms. For astjax's own code (the reverse
    sweeps of loops): no pytrees, no weak-type widening; every body is closed over what it reads.
    The length is that of xs (or `length` without xs), possibly known only at run time (-1: a
    while loop's tape)."""
    carry_avals = [aval(c) for c in carry]
    x_avals = [AVal(tuple(aval(x).shape[1:]), aval(x).dtype) for x in xs]
    hints = list(names) + [""] * (len(carry) - len(names))
    hints += list(x_names) + [""] * (len(xs) - len(x_names))
    params = [Var(a, h) for a, h in zip(carry_avals + x_avals, hints)]
    outer = current_builder()
    builder = Builder()
    builder.loc, builder.note = (outer.loc, outer.note) if outer is not None else (None, "")
    with building(builder):
        new_carry, ys = step(params[:len(carry)], params[len(carry):])
        new_carry = [_as_carry(c, a) for c, a in zip(new_carry, carry_avals)]
    outs = [_atom(x) for x in list(new_carry) + list(ys)]
    captured = free_vars(params, builder.eqns, outs)
    body = close("step", [], builder.eqns, outs, captured)
    body.params = body.params + params  # captured constants first, then carry and xs
    length = aval(xs[0]).shape[0] if xs else length
    results = bind("scan", *captured, *carry, *xs, body=body, num_consts=len(captured),
                   num_carry=len(carry), length=length, reverse=bool(reverse))
    return list(results[:len(carry)]), list(results[len(carry):])


def _as_carry(value, target: AVal):
    """A new carry in its initial value's dtype (a derivative may come back wider)."""
    if aval(value).dtype != target.dtype:
        return bind("convert", value, dtype=target.dtype.name)
    return value


def build_func(name: str, avals, hints, fn) -> Func:
    """A nested body built by calling `fn` on fresh parameters (astjax's own code: the rules'
    helper bodies); `fn` returns a list of atoms."""
    params = [Var(a, h) for a, h in zip(avals, hints)]
    outer = current_builder()
    builder = Builder()
    builder.loc = outer.loc if outer is not None else None
    with building(builder):
        outs = fn(*params)
    return Func(name, params, builder.eqns, [as_atom(o) for o in outs])
