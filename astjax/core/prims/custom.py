"""Calls of functions with user-defined derivatives (custom_jvp, custom_vjp) and checkpointed
functions: each runs its function `fun` (a nested Func) on the operands."""
from ..primitives import define


def _call_impl(*args, fun, **_):
    return fun(*args)


def _call_abstract(*avals, fun, **_):
    return fun.out_avals


# custom_jvp_call(*args, fun=F, jvp=J): F(*args), differentiated with the user's rule J
define("custom_jvp_call", _call_impl, _call_abstract, multiple_results=True, kind="custom")
# custom_vjp_call(*args, fun=F, fwd=Fw, bwd=Bw, num_res=k)
define("custom_vjp_call", _call_impl, _call_abstract, multiple_results=True, kind="custom")
# checkpoint(*args, fun=F): F's intermediates are recomputed in the reverse sweep, not stored
define("checkpoint", _call_impl, _call_abstract, multiple_results=True, kind="custom")
