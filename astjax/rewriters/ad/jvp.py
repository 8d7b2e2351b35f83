"""Forward mode: from core form f(params) -> outs, the core form of its Jacobian-vector product

    f_jvp(params..., param_dots...) -> (outs..., out_dots...)

Each equation is kept and followed by the equations of its tangent, from its primitive's JVP
rule in the table (`x_dot` names, "jvp of file:line" comments). Control flow becomes one
control-flow equation over primals and tangents together, its bodies transformed by this same
function. Only float parameters and outputs have tangents.
"""
from astjax.core import primitives
from astjax.core.bind import Builder, building
from astjax.core.ir import Eqn, Func, Var
from astjax.core.simplify import eliminate_dead_code
from astjax.errors import TransformError

from .rules import JVP
from .util import differentiable, zeros_like


def jvp_func(func: Func, name: str = None) -> Func:
    diff_params = [p for p in func.params if differentiable(p)]
    dots = [Var(p.aval, f"{p.hint or 'x'}_dot") for p in diff_params]
    tangents = {p.id: d for p, d in zip(diff_params, dots)}
    env: dict = {}
    builder = Builder()
    with building(builder):
        for eqn in func.eqns:
            _forward(eqn, env, tangents, builder)
        outs = [_read(env, o) for o in func.outs]
        out_dots = [tangents.get(o.id) if isinstance(o, Var) and o.id in tangents
                    else zeros_like(o) for o in func.outs if differentiable(o)]
    out = Func(name or f"{func.name}_jvp", func.params + dots, builder.eqns, outs + out_dots,
               func.loc)
    return eliminate_dead_code(out)


def _read(env, atom):
    return env.get(atom.id, atom) if isinstance(atom, Var) else atom


def _forward(eqn: Eqn, env: dict, tangents: dict, builder: Builder) -> None:
    ins = [_read(env, a) for a in eqn.ins]
    in_dots = [tangents.get(a.id) if isinstance(a, Var) else None for a in eqn.ins]
    builder.loc, builder.note = eqn.loc, eqn.note
    if not any(d is not None for d in in_dots) or not any(differentiable(o) for o in eqn.outs):
        builder.eqns.append(Eqn(eqn.outs, eqn.prim, ins, eqn.params, eqn.loc, eqn.note))
        return
    rule = JVP.get(eqn.prim)
    if rule is None:
        raise TransformError(f"lax.{eqn.prim} has no forward-mode derivative rule yet", eqn.loc)
    outs, out_dots = rule(ins, in_dots, **eqn.params)
    if not primitives.get(eqn.prim).multiple_results:
        outs, out_dots = [outs], [out_dots]
    for old, new in zip(eqn.outs, outs):
        if isinstance(new, Var):
            new.hint, new.origin = new.hint or old.hint, old.origin
        env[old.id] = new
    for o, d in zip(eqn.outs, out_dots):
        if d is not None and differentiable(o):
            if isinstance(d, Var) and not d.hint:
                d.hint = f"{o.hint or o.origin or 'x'}_dot"
            tangents[o.id] = d
