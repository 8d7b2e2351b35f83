"""Clean-ups on core form: dead-code elimination, so generated code has no unused temporaries."""
from .ir import Eqn, Func, Var, sub_funcs

EFFECTFUL = {"debug_print"}


def eliminate_dead_code(func: Func) -> Func:
    live = {o.id for o in func.outs if isinstance(o, Var)}
    kept = []
    for eqn in reversed(func.eqns):
        if eqn.prim in EFFECTFUL or any(v.id in live for v in eqn.outs):
            kept.append(_simplify_nested(eqn))
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    return Func(func.name, func.params, kept[::-1], func.outs, func.loc)


def _simplify_nested(eqn: Eqn) -> Eqn:
    if not any(True for _ in sub_funcs(eqn)):
        return eqn
    params = {}
    for key, value in eqn.params.items():
        if isinstance(value, Func):
            value = eliminate_dead_code(value)
        elif isinstance(value, tuple) and any(isinstance(v, Func) for v in value):
            value = tuple(eliminate_dead_code(v) if isinstance(v, Func) else v for v in value)
        params[key] = value
    return Eqn(eqn.outs, eqn.prim, eqn.ins, params, eqn.loc, eqn.note)
