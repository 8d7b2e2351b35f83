"""Derivatives of host calls: a pure_callback (or io_callback) has none, as in JAX: give it
one with custom_jvp or custom_vjp. Forward mode raises at once, since a rule runs only for
operands with tangents. Reverse mode cannot tell yet whether an operand's cotangent is wanted,
so `undefined_derivative` stands in its place: dead code where it is not wanted, the user's
error (`prims.callback.missing_derivative`) where it is."""
from astjax.core.bind import bind, current_builder
from astjax.core.prims.callback import NO_DERIVATIVE_HINT
from astjax.errors import TransformError

from .rules import JVP, VJP
from .util import differentiable


def _message(name: str) -> str:
    return f"{name} has no derivative, and a value it reads is being differentiated"


def raising_jvp(name: str):
    def jvp(primals, tangents, **params):
        builder = current_builder()
        raise TransformError(_message(name), builder.loc if builder else None,
                             hint=NO_DERIVATIVE_HINT)
    return jvp


def undefined_vjp(name: str):
    def vjp(cts, *operands, out, **params):
        builder = current_builder()
        loc = builder.loc if builder else None
        return [bind("undefined_derivative", x, message=_message(name), loc=loc)
                if differentiable(x) else None for x in operands]
    return vjp


JVP.set("pure_callback", raising_jvp("pure_callback"))
VJP.set("pure_callback", undefined_vjp("pure_callback"))


@JVP.register("undefined_derivative")
def _undefined_jvp(primals, tangents, **params):
    return bind("undefined_derivative", *primals, **params), \
        bind("undefined_derivative", *primals, **params)


@VJP.register("undefined_derivative")
def _undefined_derivative_vjp(ct, x, out, **params):
    return [bind("undefined_derivative", x, **params)]
