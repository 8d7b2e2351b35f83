"""Reverse mode: from core form f(params) -> outs, the core form of its vector-Jacobian product

    f_vjp(params..., out_bars...) -> (outs..., param_bars...)

The forward equations come first, unchanged but for loops: a scan also stacks what its reverse
sweep will read (its residuals, see `residuals.py`), a while loop records a tape of its carries.
Then the reverse sweep: for each equation, last to first, its primitive's VJP rule from the
table turns the cotangents of its outputs into cotangents of its inputs (`x_bar`), accumulated
by addition. Each derived line carries a "grad of file:line" comment. Branch and loop bodies
are differentiated by this same function; a branch's forward part, and each step of a while
loop from its tape, is computed again in the reverse sweep.

Untaken branches contribute nothing. The cotangents leaving a branch (cond, switch, select)
are zero where the branch was not taken, and a value only that branch used may be nan or inf
there (`sqrt(c - x)` guarded by `if c > x`): a plain chain rule would give 0 * nan = nan where
Python, running only the taken branch, has no term at all. So cotangents that come out of a
branch are tracked, and an elementwise rule applied to one keeps its zeros exactly:
`ct * partial` is replaced by 0 where ct is 0 and the product is not finite, computed at the
output's shape before any broadcast is summed away. Only that reverse-sweep work pays for the
select; the forward pass and the cotangents of straight-line code are unchanged.
"""
from astjax.core import primitives
from astjax.core.bind import Builder, bind, building
from astjax.core.ir import Eqn, Func, Var
from astjax.core.prims.control import stacked
from astjax.core.simplify import eliminate_dead_code
from astjax.errors import TransformError

from .residuals import split_scan_body
from .rules import VJP
from .util import aval, differentiable, unbroadcast, user_name, zeros_like


def vjp_func(func: Func, wrt: list, name: str = None, out_avals: list = None) -> Func:
    """`wrt[i]`: whether the cotangent of params[i] is wanted (it must be differentiable).
    `out_avals[j]`: the aval of outs[j]'s cotangent parameter, None for none (by default one
    per differentiable output; the branches of one cond all take the cond's, even a branch
    that returns a constant there)."""
    if out_avals is None:
        out_avals = [o.aval if differentiable(o) else None for o in func.outs]
    diff_outs = [o for o, a in zip(func.outs, out_avals) if a is not None]
    out_bars = [Var(a, f"{getattr(o, 'hint', '') or getattr(o, 'origin', '') or 'out'}_bar")
                for o, a in zip(func.outs, out_avals) if a is not None]
    builder = Builder()
    with building(builder):
        sweeps: dict = {}  # id of a taped scan -> its reverse sweep's step
        forward = [_taped(e, sweeps) for e in func.eqns]
        builder.eqns.extend(forward)
        cts: dict = {}
        for out, bar in zip(diff_outs, out_bars):
            accumulate(cts, out, bar)
        from_branch: set = set()  # ids of cotangents that may be zeros of an untaken branch
        for eqn in reversed(forward):
            _backward(eqn, cts, builder, from_branch, sweeps.get(id(eqn)))
        bars = [_bar(cts, p) for p, w in zip(func.params, wrt) if w]
    out = Func(name or f"{func.name}_vjp", func.params + out_bars, builder.eqns,
               list(func.outs) + bars, func.loc)
    return eliminate_dead_code(out)


def _bar(cts, param):
    bar = cts.get(param.id)
    return bar if bar is not None else zeros_like(param)


def accumulate(cts: dict, atom, ct, from_branch: set = None, branchy: bool = False) -> None:
    if not differentiable(atom) or ct is None:
        return
    previous = cts.get(atom.id)
    total = ct if previous is None else bind("add", previous, ct)
    if isinstance(total, Var) and not total.hint:
        total.hint = f"{atom.hint or atom.origin or 'x'}_bar"
    if from_branch is not None and isinstance(total, Var) and \
            (branchy or (isinstance(previous, Var) and previous.id in from_branch)):
        from_branch.add(total.id)
    cts[atom.id] = total


BRANCHES = {"cond", "switch", "select"}
# Elementwise primitives whose cotangents are the output's times a constant: zeros stay zeros.
KEEP_ZEROS = {"add", "sub", "neg", "convert", "stop_gradient", "select"}


def _backward(eqn: Eqn, cts: dict, builder: Builder, from_branch: set, sweep) -> None:
    out_cts = [cts.get(v.id) for v in eqn.outs]
    if all(c is None for c in out_cts) or not any(differentiable(a) for a in eqn.ins):
        return
    rule = VJP.get(eqn.prim)
    if rule is None:
        raise TransformError(f"lax.{eqn.prim} has no reverse-mode derivative rule yet",
                             eqn.loc, hint="differentiate with jax.jvp / jacfwd, or wrap the "
                                           "computation in a custom_vjp")
    builder.loc, builder.note = eqn.loc, "grad of"
    branchy = any(isinstance(c, Var) and c.id in from_branch for c in out_cts)
    tape = set(_tape_ids(eqn))
    out_cts = [c if c is not None or not differentiable(v) or v.id in tape else zeros_like(v)
               for c, v in zip(out_cts, eqn.outs)]  # (a tape without cotangent stays None)
    prim = primitives.get(eqn.prim)
    if sweep is not None:
        in_cts = rule(out_cts, *eqn.ins, out=eqn.outs, sweep=sweep, **eqn.params)
    elif prim.multiple_results:
        in_cts = rule(out_cts, *eqn.ins, out=eqn.outs, **eqn.params)
    elif branchy and prim.kind == "elementwise" and eqn.prim not in KEEP_ZEROS:
        in_cts = _keeping_zeros(rule, eqn, out_cts[0])
    else:
        in_cts = rule(out_cts[0], *eqn.ins, out=eqn.outs[0], **eqn.params)
    marks = branchy or eqn.prim in BRANCHES
    for atom, ct in zip(eqn.ins, in_cts):
        accumulate(cts, atom, ct, from_branch, marks)


def _keeping_zeros(rule, eqn: Eqn, ct) -> list:
    """The rule's cotangents, zero wherever `ct` is (even where a partial is nan or inf):
    computed at the output's shape, masked, then summed down to each operand's shape."""
    shape = tuple(eqn.outs[0].aval.shape)
    wide = [_broadcast_to(a, shape) if differentiable(a) else a for a in eqn.ins]
    in_cts = rule(ct, *wide, out=eqn.outs[0], **eqn.params)
    nonzero = bind("ne", ct, 0.0)
    return [None if c is None else unbroadcast(_zero_for_zero(nonzero, c), a)
            for c, a in zip(in_cts, eqn.ins)]


def _zero_for_zero(nonzero, c):
    """c, except 0 where the cotangent was 0 and c came out nan or inf. (Where c is finite it
    is kept even for a zero cotangent, so that differentiating this sweep again, as hessian
    does, still sees `ct * partial`.)"""
    keep = bind("bitwise_or", nonzero, bind("is_finite", c))
    return bind("select", keep, c, 0.0)


def _broadcast_to(atom, shape):
    a = aval(atom)
    if tuple(a.shape) == shape:
        return atom
    return bind("broadcast_in_dim", atom, shape=shape,
                broadcast_dimensions=tuple(range(len(shape) - a.ndim, len(shape))))


def _tape_ids(eqn: Eqn):
    """The ids of a loop's tape outputs (a tape without cotangents is left without)."""
    if eqn.prim == "while_loop_taped":
        return [v.id for v in eqn.outs[len(eqn.ins):]]
    n_tape = eqn.params.get("num_tape", 0) if eqn.prim == "scan" else 0
    return [v.id for v in eqn.outs[len(eqn.outs) - n_tape:]] if n_tape else []


def _taped(eqn: Eqn, sweeps: dict) -> Eqn:
    """Loops keep what the reverse sweep needs: a scan its residuals (recorded in `sweeps`),
    a while loop the carry at the start of every iteration."""
    if eqn.prim == "while_loop":
        tape = [Var(stacked(v.aval, -1), f"{v.hint or 'carry'}_tape") for v in eqn.outs]
        return Eqn(eqn.outs + tape, "while_loop_taped", eqn.ins, eqn.params, eqn.loc, eqn.note)
    if eqn.prim == "scan" and any(differentiable(a) for a in eqn.ins):
        taped, sweeps[id(taped)] = _taped_scan(eqn)
        return taped
    return eqn


def _taped_scan(eqn: Eqn) -> tuple:
    """(the scan stacking its residuals too, its Sweep). The residuals of a scan taped before
    (the forward pass of a gradient being differentiated again) are ordinary outputs here."""
    p = eqn.params
    body, sweep = split_scan_body(p["body"], p["num_consts"], p["num_carry"], p["length"],
                                  vjp_func)
    residuals = body.outs[len(body.outs) - sweep.num_residuals:] if sweep.num_residuals else []
    tape = [Var(stacked(aval(v), p["length"]), f"{user_name(v, 'r')}_res") for v in residuals]
    params = dict(p, body=body, num_tape=len(tape))
    return Eqn(eqn.outs + tape, "scan", eqn.ins, params, eqn.loc, eqn.note), sweep
