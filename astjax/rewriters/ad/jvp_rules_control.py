"""Forward-mode rules for control flow: one equation over primals and tangents together, its
bodies transformed by `jvp_func`. Each returns (outputs, output tangents)."""
from astjax.core.bind import bind
from astjax.core.ir import Func, Var

from .util import differentiable, zeros_like
from .jvp import jvp_func
from .jvp_rules import rule


def _dots(primals, tangents) -> list:
    """A tangent for every differentiable operand (zeros where none was given)."""
    return [d if d is not None else zeros_like(p)
            for p, d in zip(primals, tangents) if differentiable(p)]


def _split(outs, func_outs):
    n = len(func_outs)
    return outs[:n], _spread(outs[n:], func_outs)


def _spread(dots, atoms) -> list:
    it = iter(dots)
    return [next(it) if differentiable(a) else None for a in atoms]


def _branches(primals, tangents, branches):
    selector, ops, op_dots = primals[0], primals[1:], tangents[1:]
    jvps = tuple(jvp_func(b, f"{b.name}_jvp") for b in branches)
    prim = "cond" if len(branches) == 2 else "switch"
    outs = bind(prim, selector, *ops, *_dots(ops, op_dots), branches=jvps)
    return _split(outs, branches[0].outs)


rule("cond")(lambda primals, tangents, branches: _branches(primals, tangents, branches))
rule("switch")(lambda primals, tangents, branches: _branches(primals, tangents, branches))


@rule("while_loop")
def _while(primals, tangents, cond, body):
    body_jvp = jvp_func(body, f"{body.name}_jvp")
    extra = [Var(p.aval, f"{p.hint}_dot") for p in cond.params if differentiable(p)]
    cond_jvp = Func(cond.name, cond.params + extra, cond.eqns, cond.outs, cond.loc)
    outs = bind("while_loop", *primals, *_dots(primals, tangents), cond=cond_jvp, body=body_jvp)
    return _split(outs, body.outs)


@rule("scan")
def _scan(primals, tangents, body, num_consts, num_carry, length, reverse=False, num_tape=0):
    groups = [(0, num_consts), (num_consts, num_consts + num_carry),
              (num_consts + num_carry, len(primals))]
    body_jvp = jvp_func(body, f"{body.name}_jvp")
    n_params = len(body.params)
    dot_params = iter(body_jvp.params[n_params:])
    dot_of = {i: next(dot_params) for i, p in enumerate(body.params) if differentiable(p)}
    params, operands = [], []
    for start, stop in groups:  # each group's primals, then its tangents
        params += body.params[start:stop] + [dot_of[i] for i in range(start, stop) if i in dot_of]
        operands += list(primals[start:stop]) + _dots(primals[start:stop], tangents[start:stop])
    n_out = len(body.outs)
    out_dot = iter(body_jvp.outs[n_out:])
    dot_out = {i: next(out_dot) for i, o in enumerate(body.outs) if differentiable(o)}
    carry_outs = body_jvp.outs[:num_carry] + [dot_out[i] for i in range(num_carry) if i in dot_out]
    ys = body_jvp.outs[num_carry:n_out] + [dot_out[i] for i in range(num_carry, n_out) if i in dot_out]
    new_body = Func(body_jvp.name, params, body_jvp.eqns, carry_outs + ys, body_jvp.loc)
    n_carry = num_carry + sum(1 for i in range(num_carry) if i in dot_out)
    n_consts = num_consts + sum(1 for i in range(num_consts) if i in dot_of)
    outs = bind("scan", *operands, body=new_body, num_consts=n_consts, num_carry=n_carry,
                length=length, reverse=reverse)
    return _reassemble(outs, body.outs, num_carry, dot_out)


def _reassemble(outs, body_outs, num_carry, dot_out):
    """Back from [carry, carry dots, ys, ys dots] to (primal outs, their tangents)."""
    n_out = len(body_outs)
    n_cd = sum(1 for i in range(num_carry) if i in dot_out)
    carry, carry_dots = outs[:num_carry], outs[num_carry:num_carry + n_cd]
    rest = outs[num_carry + n_cd:]
    n_y = n_out - num_carry
    ys, ys_dots = rest[:n_y], rest[n_y:]
    dots = iter(list(carry_dots) + list(ys_dots))
    return list(carry) + list(ys), [next(dots) if i in dot_out else None for i in range(n_out)]
