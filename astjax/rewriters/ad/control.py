"""Derivatives of control flow: one equation over primals and tangents together (forward), or a
reverse sweep (reverse), its bodies transformed recursively by `jvp_func` / `vjp_func`.

A scan's reverse sweep is a scan in the other direction over the residuals its forward pass
stacked (residuals.py). A `while` loop records a tape of its carries (`while_loop_taped`); its
sweep is a reverse scan over that tape that computes each step's forward part again.
"""
from astjax.core.bind import bind
from astjax.core.build import scan_of
from astjax.core.inline import inline
from astjax.core.ir import Func, Var
from astjax.core.simplify import eliminate_dead_code

from .jvp import jvp_func
from .rules import JVP, VJP
from .util import differentiable, user_name, zeros_like
from .vjp import vjp_func


# ---------------------------------------------------------------- forward mode
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


def _branches_jvp(primals, tangents, branches):
    selector, ops, op_dots = primals[0], primals[1:], tangents[1:]
    jvps = tuple(jvp_func(b, f"{b.name}_jvp") for b in branches)
    prim = "cond" if len(branches) == 2 else "switch"
    outs = bind(prim, selector, *ops, *_dots(ops, op_dots), branches=jvps)
    return _split(outs, branches[0].outs)


JVP.register("cond", "switch")(_branches_jvp)


@JVP.register("while_loop")
def _while_jvp(primals, tangents, cond, body):
    body_jvp = jvp_func(body, f"{body.name}_jvp")
    extra = [Var(p.aval, f"{p.hint}_dot") for p in cond.params if differentiable(p)]
    cond_jvp = Func(cond.name, cond.params + extra, cond.eqns, cond.outs, cond.loc)
    outs = bind("while_loop", *primals, *_param_dots(body.params, primals, tangents), cond=cond_jvp,
                body=body_jvp)
    return outs[:len(primals)], _spread(outs[len(primals):], body.params)


@JVP.register("while_loop_taped")
def _while_taped_jvp(primals, tangents, cond, body):
    """The taped loop over carries and their tangents together: its tape of the tangents is
    the tangent of the tape (a forward-over-reverse derivative through a while loop)."""
    body_jvp = jvp_func(body, f"{body.name}_jvp")
    extra = [Var(p.aval, f"{p.hint}_dot") for p in cond.params if differentiable(p)]
    cond_jvp = Func(cond.name, cond.params + extra, cond.eqns, cond.outs, cond.loc)
    dots = _param_dots(body.params, primals, tangents)
    outs = bind("while_loop_taped", *primals, *dots, cond=cond_jvp, body=body_jvp)
    n, d = len(primals), len(dots)
    carry, carry_dots = outs[:n], outs[n:n + d]
    tape, tape_dots = outs[n + d:2 * n + d], outs[2 * n + d:]
    return (list(carry) + list(tape),
            _spread(carry_dots, body.params) + _spread(tape_dots, body.params))


def _param_dots(params, primals, tangents) -> list:
    """A tangent for every parameter the body differentiates (a float carry may start as a
    literal, which has none): the given one, or zeros."""
    return [t if t is not None else zeros_like(p)
            for p, t, param in zip(primals, tangents, params) if differentiable(param)]


@JVP.register("scan")
def _scan_jvp(primals, tangents, body, num_consts, num_carry, length, reverse=False, num_tape=0):
    groups = [(0, num_consts), (num_consts, num_consts + num_carry),
              (num_consts + num_carry, len(primals))]
    body_jvp = jvp_func(body, f"{body.name}_jvp")
    n_params = len(body.params)
    dot_params = iter(body_jvp.params[n_params:])
    dot_of = {i: next(dot_params) for i, p in enumerate(body.params) if differentiable(p)}
    params, operands = [], []
    for start, stop in groups:  # each group's primals, then its tangents
        params += body.params[start:stop] + [dot_of[i] for i in range(start, stop) if i in dot_of]
        operands += list(primals[start:stop]) + _param_dots(body.params[start:stop],
                                                            primals[start:stop],
                                                            tangents[start:stop])
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


# ---------------------------------------------------------------- reverse mode
def _only_bars(vjp: Func, n_outs: int) -> Func:
    """A body's VJP that returns only the cotangents (the forward outputs are not needed)."""
    return eliminate_dead_code(Func(vjp.name, vjp.params, vjp.eqns, vjp.outs[n_outs:], vjp.loc))


def _branches_vjp(cts, selector, *ops, out, branches):
    wrt = [differentiable(o) for o in ops]
    out_avals = [v.aval if differentiable(v) else None for v in out]
    bars_of = [_only_bars(vjp_func(b, wrt, f"{b.name}_vjp", out_avals), len(b.outs))
               for b in branches]
    diff_cts = [c if c is not None else zeros_like(v) for c, v in zip(cts, out) if differentiable(v)]
    bars = iter(bind("cond" if len(branches) == 2 else "switch",
                     selector, *ops, *diff_cts, branches=tuple(bars_of)))
    return [None] + [next(bars) if w else None for w in wrt]


VJP.register("cond", "switch")(_branches_vjp)


@VJP.register("while_loop_taped")
def _while_vjp(cts, *carry, out, cond, body):
    """Walk the tape backwards, applying the body's VJP once per recorded iteration. When the
    tape itself has cotangents (a second derivative differentiates the first one's reverse
    sweep), each step adds the cotangent of the carry it recorded."""
    n = len(carry)
    # Which carries carry a derivative is the body's to say (a carry may start as a literal
    # 0.0 and become a float Var): one cotangent per float carry, in and out of the body.
    tape, wrt = out[n:], [differentiable(p) for p in body.params]
    ct_avals = [p.aval if w else None for p, w in zip(body.params, wrt)]
    body_bars = _only_bars(vjp_func(body, wrt, f"{body.name}_vjp", ct_avals), len(body.outs))
    tape_cts = [(i, c) for i, (c, w) in enumerate(zip(cts[n:], wrt)) if w and c is not None]
    diff_positions = [i for i, w in enumerate(wrt) if w]

    def step(carry_bar, slices):
        carry_k, tape_bar_k = slices[:n], slices[n:]
        bars = inline(body_bars, list(carry_k) + list(carry_bar))
        # A recorded carry that fails the condition is no iteration: a lane of a batched loop
        # that had stopped (its carry frozen) while others ran on. Its cotangent passes through.
        ran = inline(cond, list(carry_k))[0]
        if isinstance(ran, Var):
            ran.hint = "ran"
        bars = [_named_as(bind("select", ran, b, c), c) for b, c in zip(bars, carry_bar)]
        extra = dict(zip([i for i, _ in tape_cts], tape_bar_k))
        return [bind("add", b, extra[i]) if i in extra else b
                for b, i in zip(bars, diff_positions)], []

    names = [f"{_name(carry[i])}_bar" for i in diff_positions]
    init = [_named_as(cts[i] if cts[i] is not None else zeros_like(out[i]), name)
            for i, name in zip(diff_positions, names)]
    x_names = [_name(c) for c in carry] + [f"{_name(carry[i])}_tape_bar" for i, _ in tape_cts]
    final, _ = scan_of(step, init, list(tape) + [c for _, c in tape_cts], reverse=True,
                       names=names, x_names=x_names)
    bars = dict(zip(diff_positions, final))
    return [bars[i] if i in bars and differentiable(c) else None for i, c in enumerate(carry)]


@VJP.register("scan")
def _scan_vjp(cts, *ops, out, body, num_consts, num_carry, length, sweep, reverse=False,
              num_tape=0):
    """A scan in the other direction over the residuals the forward scan stacked (`sweep`:
    see residuals.py), carrying the cotangents of the carries and summing the constants'."""
    consts, xs = ops[:num_consts], ops[num_consts + num_carry:]
    n_ys = len(out) - num_carry - num_tape
    wrt = [differentiable(p) for p in body.params]
    diff_outs = [differentiable(v) for v in body.outs[:num_carry + n_ys]]
    residuals = out[num_carry + n_ys:]
    ys_out = out[num_carry:num_carry + n_ys]
    ys_bar = [c if c is not None else zeros_like(v)
              for c, v in zip(cts[num_carry:num_carry + n_ys], ys_out)]
    carry_bar = [c if c is not None else zeros_like(v) for c, v in zip(cts[:num_carry], out)]
    n_c = sum(wrt[:num_consts])
    carry_mask = wrt[num_consts:num_consts + num_carry]
    n_carry_bars = sum(carry_mask)
    n_x, n_r = len(xs), len(residuals)

    def step(state, slices):
        consts_bar, c_bar = state[:n_c], state[n_c:]
        x_k, r_k, y_bar_k = slices[:n_x], slices[n_x:n_x + n_r], slices[n_x + n_r:]
        seeds = [s for s, d in zip(list(c_bar) + list(y_bar_k), diff_outs) if d]
        bars = inline(sweep.func, list(consts) + list(x_k) + list(r_k) + seeds)
        const_part, rest = bars[:n_c], bars[n_c:]
        new_c_bar = _scatter_mask(rest[:n_carry_bars], carry_mask, c_bar)
        summed = [bind("add", a, b) for a, b in zip(consts_bar, const_part)]
        return summed + list(new_c_bar), list(rest[n_carry_bars:])

    diff_consts = [c for c, w in zip(consts, wrt[:num_consts]) if w]
    carry_params = body.params[num_consts:num_consts + num_carry]
    names = ([f"{_name(c)}_bar" for c in diff_consts]
             + [f"{_name(p)}_bar" for p in carry_params])
    x_names = ([_name(p) for p in body.params[num_consts + num_carry:]]
               + [_name(r) for r in residuals] + [f"{_name(y)}_bar" for y in ys_out])
    final, xs_bar = scan_of(step, [zeros_like(c) for c in diff_consts] + carry_bar,
                            list(xs) + list(residuals) + ys_bar,
                            reverse=not reverse, length=length, names=names, x_names=x_names)
    consts_bar, c_bar = final[:n_c], final[n_c:]
    bars = list(consts_bar) + [b for b, w in zip(c_bar, carry_mask) if w] + list(xs_bar)
    it = iter(bars)
    return [next(it) if w else None for w in wrt]


def _scatter_mask(values, mask, like):
    """Values for the positions where mask is true, zeros elsewhere, as a list like `like`."""
    it = iter(values)
    return [next(it) if m else zeros_like(l) for m, l in zip(mask, like)]


def _name(atom) -> str:
    """The last part of a value's user name (`wh` of `params.wh`)."""
    return user_name(atom, "c").split(".")[-1]


def _named_as(value, name):
    """value, printed under `name` (a Var's hint, or a string) unless it has a name: a
    carry's cotangent keeps the carry's name through the select that freezes it and the
    zeros that start it."""
    hint = name.hint if isinstance(name, Var) else name
    if isinstance(value, Var) and hint and not value.hint:
        value.hint = hint
    return value
