"""Derivatives of the calls with user-defined rules (custom_jvp_call, custom_vjp_call) and of
checkpointed functions (recomputed in the reverse sweep instead of stored)."""
from astjax.core.bind import bind
from astjax.core.inline import inline
from astjax.errors import TransformError

from .util import differentiable, zeros_like
from .jvp import jvp_func
from .rules import JVP, VJP
from .vjp import vjp_func


# ---------------------------------------------------------------- custom_jvp
# Operands are the user's arguments (num_args of them) then outer values the functions read.
# fun(args..., outer...) -> outs; jvp(args..., tangents..., outer...) -> (outs..., out tangents...)
@JVP.register("custom_jvp_call")
def _custom_jvp_forward(primals, tangents, fun, jvp, num_args):
    args, outer = primals[:num_args], primals[num_args:]
    dots = [t if t is not None else zeros_like(p) for p, t in zip(args, tangents)]
    outs = inline(jvp, list(args) + dots + list(outer))
    n = len(fun.outs)
    return outs[:n], outs[n:]


@VJP.register("custom_jvp_call")
def _custom_jvp_reverse(cts, *ops, out, fun, jvp, num_args):
    """The rule is linear in the tangents, so its reverse-mode derivative with respect to them
    (at zero tangents) applies the transposed Jacobian to the cotangents."""
    args, outer = ops[:num_args], ops[num_args:]
    wrt = [False] * num_args + [differentiable(a) for a in args] + [False] * len(outer)
    vjp = vjp_func(jvp, wrt, f"{jvp.name}_transposed")
    n = len(fun.outs)
    value_seeds = [zeros_like(o) for o in jvp.outs[:n] if differentiable(o)]
    tangent_seeds = [c if c is not None else zeros_like(o)
                     for c, o in zip(cts, out) if differentiable(o)]
    zeros = [zeros_like(a) for a in args]
    bars = iter(inline(vjp, list(args) + zeros + list(outer) + value_seeds + tangent_seeds)
                [len(jvp.outs):])
    return [next(bars) if differentiable(a) else None for a in args] + [None] * len(outer)


# ---------------------------------------------------------------- custom_vjp
# fwd(args..., outer...) -> (outs..., residuals...); bwd(residuals..., cts..., outer...) -> bars
@VJP.register("custom_vjp_call")
def _custom_vjp_reverse(cts, *ops, out, fun, fwd, bwd, num_args):
    args, outer = ops[:num_args], ops[num_args:]
    res = inline(fwd, list(ops))[len(fun.outs):]
    seeds = [c if c is not None else zeros_like(o) for c, o in zip(cts, out)]
    bars = inline(bwd, list(res) + seeds + list(outer))
    return [b if differentiable(a) else None for a, b in zip(args, bars)] + [None] * len(outer)


@JVP.register("custom_vjp_call")
def _custom_vjp_forward(primals, tangents, **params):
    raise TransformError("forward-mode differentiation (jvp, jacfwd, hessian) of a custom_vjp "
                         "function is not defined", hint="use custom_jvp to give a rule that "
                                                         "works in both modes")


# ---------------------------------------------------------------- checkpoint
@VJP.register("checkpoint")
def _checkpoint_reverse(cts, *args, out, fun):
    """Recompute the forward pass of the wrapped function inside the reverse sweep."""
    wrt = [differentiable(a) for a in args]
    vjp = vjp_func(fun, wrt, f"{fun.name}_vjp")
    seeds = [c if c is not None else zeros_like(o) for c, o in zip(cts, out) if differentiable(o)]
    bars = iter(inline(vjp, list(args) + seeds)[len(fun.outs):])
    return [next(bars) if w else None for w in wrt]


@JVP.register("checkpoint")
def _checkpoint_forward(primals, tangents, fun):
    jvp = jvp_func(fun, f"{fun.name}_jvp")
    dots = [t if t is not None else zeros_like(p)
            for p, t in zip(primals, tangents) if differentiable(p)]
    outs = bind("checkpoint", *primals, *dots, fun=jvp)
    n = len(fun.outs)
    out_dots = iter(outs[n:])
    return outs[:n], [next(out_dots) if differentiable(o) else None for o in fun.outs]
