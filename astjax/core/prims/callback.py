"""Calls of the user's Python functions from compiled code (`jax.pure_callback`).

The function is a parameter (`callback`, a `HostFunction`): it takes NumPy arrays and gives
the results as the `results` avals say. `pure_callback` is pure: its result depends on its
operands alone, so it may be computed once for equal operands, or not at all when nothing
reads it. The calls that must happen, in program order, are effects (`effect.py`)."""
from ...errors import TransformError
from ..host import conform
from ..ir import sub_funcs
from ..primitives import define


def _call(*operands, callback, results, **_):
    return conform(callback(*operands), results, callback)


def _results(*avals, results, **_):
    return list(results)


# pure_callback(*operands, callback=H, results=(AVal, ...), vmap_method=None | "sequential" |
# "sequential_unrolled" | "expand_dims" | "broadcast_all" | "legacy_vectorized")
define("pure_callback", _call, _results, multiple_results=True, kind="callback")


def _undefined_derivative(operand, *, message, loc):
    raise TransformError(message, loc)


# undefined_derivative(x, message=..., loc=...): stands for a derivative that does not exist (of a
# pure_callback's operand x). Removed as dead code where nothing reads it; one that is left in
# a compiled function is the user's error (`missing_derivative`), raised before any backend.
define("undefined_derivative", _undefined_derivative, lambda a, **_: a.strong(), kind="callback")


NO_DERIVATIVE_HINT = "give the function its derivative with jax.custom_jvp or jax.custom_vjp"


def missing_derivative(func) -> None:
    """Raise the error of the first undefined_derivative left in `func` (its branches and bodies)."""
    for eqn in func.eqns:
        if eqn.prim == "undefined_derivative":
            raise TransformError(eqn.params["message"], eqn.params["loc"],
                                 hint=NO_DERIVATIVE_HINT)
        for sub in sub_funcs(eqn):
            missing_derivative(sub)
