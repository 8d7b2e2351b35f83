"""Batching of the primitives that hold user rules (custom_jvp_call, custom_vjp_call) and of
checkpoint.

The held functions are batched with `vmap_func` (every output batched), so the batched
equation is again a custom_jvp_call / custom_vjp_call whose rules apply lane by lane. A
custom_vjp's backward function returns per-lane cotangents; for an argument that is not batched
they are summed over the lanes (its cotangent is the sum of every example's contribution).
"""
from astjax.core.bind import bind
from astjax.core.build import build_func
from astjax.core.inline import inline

from .util import BATCH
from .vmap import batch_func, vmap_func


@BATCH.register("checkpoint")
def _checkpoint(args, dims, *, axis_size, fun):
    fun_b, out_b = batch_func(fun, [d is not None for d in dims], axis_size)
    return bind("checkpoint", *args, fun=fun_b), [0 if b else None for b in out_b]


@BATCH.register("custom_jvp_call")
def _custom_jvp(args, dims, *, axis_size, fun, jvp, num_args):
    flags = [d is not None for d in dims]
    arg_b, outer_b = flags[:num_args], flags[num_args:]
    fun_b = vmap_func(fun, flags, axis_size)
    jvp_b = vmap_func(jvp, arg_b + arg_b + outer_b, axis_size)  # tangents batched like primals
    outs = bind("custom_jvp_call", *args, fun=fun_b, jvp=jvp_b, num_args=num_args)
    return outs, [0] * len(outs)


@BATCH.register("custom_vjp_call")
def _custom_vjp(args, dims, *, axis_size, fun, fwd, bwd, num_args):
    flags = [d is not None for d in dims]
    arg_b, outer_b = flags[:num_args], flags[num_args:]
    fwd_b = vmap_func(fwd, flags, axis_size)
    n_res = len(fwd.outs) - len(fun.outs)
    bwd_b = vmap_func(bwd, [True] * (n_res + len(fun.outs)) + outer_b, axis_size)
    bwd_summed = build_func(bwd_b.name, [p.aval for p in bwd_b.params],
                            [p.hint for p in bwd_b.params],
                            lambda *ops: [bar if b else bind("reduce_sum", bar, axes=(0,))
                                          for bar, b in zip(inline(bwd_b, ops), arg_b)])
    outs = bind("custom_vjp_call", *args, fun=vmap_func(fun, flags, axis_size), fwd=fwd_b,
                bwd=bwd_summed, num_args=num_args)
    return outs, [0] * len(outs)
