"""Calls of functions with user-defined derivatives and of checkpoint: on a backend the function
just runs, inlined (its derivatives were already derived)."""
from .emit import EMIT


def emit_call(fe, eqn):
    """custom_jvp_call / custom_vjp_call / checkpoint: run the primal function; the rules they
    carry matter only to transformations, which have already run."""
    outs = fe.inline_here(eqn.params["fun"], [fe.value(a) for a in eqn.ins])
    for var, value in zip(eqn.outs, outs):
        fe.bind(var, value)


for _name in ("custom_jvp_call", "custom_vjp_call", "checkpoint"):
    EMIT.set(_name, emit_call)
