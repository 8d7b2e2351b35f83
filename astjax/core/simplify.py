"""Clean-ups on core form: dead-code elimination (no unused temporaries) and common
subexpression elimination (shared work computed once)."""
import numpy as np

from .ir import Eqn, Func, Var, sub_funcs
from .primitives import get


def effectful(eqn: Eqn) -> bool:
    """Never removed or merged: its kind is "effect" (it does something besides its result),
    or a nested function of it (a branch, a loop body) has such an equation."""
    if get(eqn.prim).kind == "effect":
        return True
    return any(effectful(e) for f in sub_funcs(eqn) for e in f.eqns)


def eliminate_dead_code(func: Func) -> Func:
    live = {o.id for o in func.outs if isinstance(o, Var)}
    kept = []
    for eqn in reversed(func.eqns):
        if effectful(eqn) or any(v.id in live for v in eqn.outs):
            kept.append(_simplify_nested(eqn, eliminate_dead_code))
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    return Func(func.name, func.params, kept[::-1], func.outs, func.loc)


def _simplify_nested(eqn: Eqn, simplify_body) -> Eqn:
    if not any(True for _ in sub_funcs(eqn)):
        return eqn
    params = {}
    for key, value in eqn.params.items():
        if isinstance(value, Func):
            value = simplify_body(value)
        elif isinstance(value, tuple) and any(isinstance(v, Func) for v in value):
            value = tuple(simplify_body(v) if isinstance(v, Func) else v for v in value)
        params[key] = value
    return Eqn(eqn.outs, eqn.prim, eqn.ins, params, eqn.loc, eqn.note)


def eliminate_common_subexpressions(func: Func) -> Func:
    """An equation that repeats an earlier one (same primitive, operands and params) is
    dropped and its results replaced by the earlier results: shared work is computed once."""
    env, seen, kept = {}, {}, []
    read = lambda a: env.get(a.id, a) if isinstance(a, Var) else a  # noqa: E731
    for eqn in func.eqns:
        eqn = Eqn(eqn.outs, eqn.prim, [read(a) for a in eqn.ins], eqn.params, eqn.loc, eqn.note)
        key = _key(eqn)
        if key is not None and key in seen:
            env.update({o.id: prev for o, prev in zip(eqn.outs, seen[key])})
            continue
        if key is not None:
            seen[key] = eqn.outs
        kept.append(_simplify_nested(eqn, eliminate_common_subexpressions))
    return Func(func.name, func.params, kept, [read(o) for o in func.outs], func.loc)


def _key(eqn: Eqn):
    if effectful(eqn) or any(True for _ in sub_funcs(eqn)):
        return None
    try:
        params = tuple(sorted(eqn.params.items()))
        hash(params)
    except TypeError:
        return None
    return (eqn.prim, tuple(_atom_key(a) for a in eqn.ins), params)


def _atom_key(atom):
    if isinstance(atom, Var):
        return ("var", atom.id)
    value = atom.value
    if isinstance(value, np.ndarray):
        return ("array", id(value))
    return ("literal", type(value).__name__, repr(value))


def simplify(func: Func) -> Func:
    return eliminate_dead_code(eliminate_common_subexpressions(func))
