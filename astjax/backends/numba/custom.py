"""Lowering of the calls of functions with user-defined derivatives and of checkpoint: on a
backend the function just runs (its derivatives were already derived)."""
from .control import assign, call
from .emit import LOWER


def lower_call(fe, eqn, ins, outs):
    """custom_jvp_call / custom_vjp_call / checkpoint: run the primal function; the rules they
    carry matter only to transformations, which have already run."""
    return [assign(outs, call(fe.sub(eqn.params["fun"]), ins))]


for _name in ("custom_jvp_call", "custom_vjp_call", "checkpoint"):
    LOWER.set(_name, lower_call)
