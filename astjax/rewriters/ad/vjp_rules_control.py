"""Reverse-mode rules for control flow. Each body is differentiated by `vjp_func` and its
forward part recomputed inside the reverse sweep, so nothing but loop carries is stored."""
from astjax import control
from astjax.core.bind import bind
from astjax.core.inline import inline
from astjax.core.ir import Func

from .util import differentiable, zeros_like
from .vjp import vjp_func
from .vjp_rules import rule


def _only_bars(vjp: Func, n_outs: int) -> Func:
    """A body's VJP that returns only the cotangents (the forward outputs are not needed)."""
    from astjax.core.simplify import eliminate_dead_code
    return eliminate_dead_code(Func(vjp.name, vjp.params, vjp.eqns, vjp.outs[n_outs:], vjp.loc))


def _branches_rule(cts, selector, *ops, out, branches):
    wrt = [differentiable(o) for o in ops]
    bars_of = [_only_bars(vjp_func(b, wrt, f"{b.name}_vjp"), len(b.outs)) for b in branches]
    diff_cts = [c for c, v in zip(cts, out) if differentiable(v)]
    bars = iter(bind("cond" if len(branches) == 2 else "switch",
                     selector, *ops, *diff_cts, branches=tuple(bars_of)))
    return [None] + [next(bars) if w else None for w in wrt]


rule("cond")(_branches_rule)
rule("switch")(_branches_rule)


@rule("while_loop_taped")
def _while(cts, *carry, out, cond, body):
    """Walk the tape backwards, applying the body's VJP once per recorded iteration. When the
    tape itself has cotangents (a second derivative differentiates the first one's reverse
    sweep), each step adds the cotangent of the carry it recorded."""
    n = len(carry)
    tape, wrt = out[n:], [differentiable(c) for c in carry]
    body_bars = _only_bars(vjp_func(body, wrt, f"{body.name}_vjp"), len(body.outs))
    tape_cts = [(i, c) for i, (c, w) in enumerate(zip(cts[n:], wrt)) if w and c is not None]
    diff_positions = [i for i, w in enumerate(wrt) if w]

    def step(carry_bar, slices):
        carry_k, tape_bar_k = slices
        bars = inline(body_bars, list(carry_k) + list(carry_bar))
        extra = dict(zip([i for i, _ in tape_cts], tape_bar_k))
        return tuple(bind("add", b, extra[i]) if i in extra else b
                     for b, i in zip(bars, diff_positions)), None

    init = tuple(c if c is not None else zeros_like(v)
                 for c, v, w in zip(cts[:n], out[:n], wrt) if w)
    xs = (tuple(tape), tuple(c for _, c in tape_cts))
    final, _ = control.scan(step, init, xs, reverse=True)
    bars = iter(final)
    return [next(bars) if w else None for w in wrt]


@rule("scan")
def _scan(cts, *ops, out, body, num_consts, num_carry, length, reverse=False, num_tape=0):
    consts, xs = ops[:num_consts], ops[num_consts + num_carry:]
    n_ys = len(out) - num_carry - num_tape
    plain = Func(body.name, body.params, body.eqns, body.outs[:len(body.outs) - num_tape], body.loc)
    wrt = [differentiable(p) for p in body.params]
    body_bars = _only_bars(vjp_func(plain, wrt, f"{body.name}_vjp"), len(plain.outs))
    diff_outs = [differentiable(v) for v in plain.outs]
    tape = out[num_carry + n_ys:]
    ys_bar = [c if c is not None else zeros_like(v)
              for c, v in zip(cts[num_carry:num_carry + n_ys], out[num_carry:num_carry + n_ys])]
    carry_bar = [c if c is not None else zeros_like(v) for c, v in zip(cts[:num_carry], out)]
    n_c = sum(wrt[:num_consts])

    def step(state, slices):
        consts_bar, c_bar = state
        carry_k, x_k, y_bar_k = slices
        seeds = [s for s, d in zip(list(c_bar) + list(y_bar_k), diff_outs) if d]
        bars = inline(body_bars, list(consts) + list(carry_k) + list(x_k) + seeds)
        const_part, rest = bars[:n_c], bars[n_c:]
        carry_mask = wrt[num_consts:num_consts + num_carry]
        n_carry_bars = sum(carry_mask)
        new_c_bar = _scatter_mask(rest[:n_carry_bars], carry_mask, c_bar)
        summed = tuple(bind("add", a, b) for a, b in zip(consts_bar, const_part))
        return (summed, new_c_bar), tuple(rest[n_carry_bars:])

    consts_bar0 = tuple(zeros_like(c) for c, w in zip(consts, wrt[:num_consts]) if w)
    (consts_bar, c_bar), xs_bar = control.scan(
        step, (consts_bar0, tuple(carry_bar)), (tuple(tape), tuple(xs), tuple(ys_bar)),
        reverse=not reverse)
    bars = list(consts_bar) + [b for b, w in zip(c_bar, wrt[num_consts:num_consts + num_carry])
                               if w] + list(xs_bar)
    it = iter(bars)
    return [next(it) if w else None for w in wrt]


def _scatter_mask(values, mask, like):
    """Values for the positions where mask is true, zeros elsewhere, as a tuple like `like`."""
    it = iter(values)
    return tuple(next(it) if m else zeros_like(l) for m, l in zip(mask, like))
