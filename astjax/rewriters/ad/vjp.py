"""Reverse mode: from core form f(params) -> outs, the core form of its vector-Jacobian product

    f_vjp(params..., out_bars...) -> (outs..., param_bars...)

The forward equations come first, unchanged (loops record a tape of their carries), then the
reverse sweep: for each equation, last to first, its primitive's VJP rule from the table turns
the cotangents of its outputs into cotangents of its inputs (`x_bar`), accumulated by addition.
Each derived line carries a "grad of file:line" comment. Branch and loop bodies are
differentiated by this same function; their forward part is recomputed in the reverse sweep.
"""
from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.bind import Builder, bind, building
from astjax.core.ir import Eqn, Func, Var
from astjax.core.simplify import eliminate_dead_code
from astjax.errors import TransformError

from .rules import VJP
from .util import differentiable, zeros_like


def vjp_func(func: Func, wrt: list, name: str = None) -> Func:
    """`wrt[i]`: whether the cotangent of params[i] is wanted (it must be differentiable)."""
    diff_outs = [o for o in func.outs if differentiable(o)]
    out_bars = [Var(o.aval, f"{o.hint or o.origin or 'out'}_bar") for o in diff_outs]
    builder = Builder()
    with building(builder):
        forward = [_taped(e) for e in func.eqns]
        builder.eqns.extend(forward)
        cts: dict = {}
        for out, bar in zip(diff_outs, out_bars):
            accumulate(cts, out, bar)
        for eqn in reversed(forward):
            _backward(eqn, cts, builder)
        bars = [_bar(cts, p) for p, w in zip(func.params, wrt) if w]
    out = Func(name or f"{func.name}_vjp", func.params + out_bars, builder.eqns,
               list(func.outs) + bars, func.loc)
    return eliminate_dead_code(out)


def _bar(cts, param):
    bar = cts.get(param.id)
    return bar if bar is not None else zeros_like(param)


def accumulate(cts: dict, atom, ct) -> None:
    if not differentiable(atom) or ct is None:
        return
    previous = cts.get(atom.id)
    total = ct if previous is None else bind("add", previous, ct)
    if isinstance(total, Var) and not total.hint:
        total.hint = f"{atom.hint or atom.origin or 'x'}_bar"
    cts[atom.id] = total


def _backward(eqn: Eqn, cts: dict, builder: Builder) -> None:
    out_cts = [cts.get(v.id) for v in eqn.outs]
    if all(c is None for c in out_cts) or not any(differentiable(a) for a in eqn.ins):
        return
    rule = VJP.get(eqn.prim)
    if rule is None:
        raise TransformError(f"lax.{eqn.prim} has no reverse-mode derivative rule yet",
                             eqn.loc, hint="differentiate with jax.jvp / jacfwd, or wrap the "
                                           "computation in a custom_vjp")
    builder.loc, builder.note = eqn.loc, "grad of"
    out_cts = [c if c is not None or not differentiable(v) or _dynamic(v) else zeros_like(v)
               for c, v in zip(out_cts, eqn.outs)]  # (a tape without cotangent stays None)
    if primitives.get(eqn.prim).multiple_results:
        in_cts = rule(out_cts, *eqn.ins, out=eqn.outs, **eqn.params)
    else:
        in_cts = rule(out_cts[0], *eqn.ins, out=eqn.outs[0], **eqn.params)
    for atom, ct in zip(eqn.ins, in_cts):
        accumulate(cts, atom, ct)


def _dynamic(var) -> bool:
    """A while loop's tape: its length is known only when the loop runs."""
    return any(d < 0 for d in var.aval.shape)


def _taped(eqn: Eqn) -> Eqn:
    """Loops keep what the reverse sweep needs: the carry at the start of every iteration."""
    if eqn.prim == "while_loop":
        tape = [Var(_stacked(v.aval, -1), f"{v.hint or 'carry'}_tape") for v in eqn.outs]
        return Eqn(eqn.outs + tape, "while_loop_taped", eqn.ins, eqn.params, eqn.loc, eqn.note)
    if eqn.prim == "scan" and not eqn.params.get("num_tape"):
        return _taped_scan(eqn)
    return eqn


def _taped_scan(eqn: Eqn) -> Eqn:
    p = eqn.params
    body = p["body"]
    carry_params = body.params[p["num_consts"]:p["num_consts"] + p["num_carry"]]
    taped_body = Func(body.name, body.params, body.eqns, list(body.outs) + carry_params, body.loc)
    tape = [Var(_stacked(v.aval, p["length"]), f"{v.hint or 'carry'}_tape") for v in carry_params]
    params = dict(p, body=taped_body, num_tape=len(tape))
    return Eqn(eqn.outs + tape, "scan", eqn.ins, params, eqn.loc, eqn.note)


def _stacked(aval, length):
    return AVal((length,) + aval.shape, aval.dtype)
