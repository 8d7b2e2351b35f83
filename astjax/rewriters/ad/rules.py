"""The two tables of derivative rules, and the adaptors that keep most rules one line long.

JVP: `jvp(primals, tangents, **params) -> (out, out_tangent)`
    primals are the equation's operands (Vars or literals), tangents one per operand (None for
    zero). The rule emits the primal equation itself (through `bind`) and the equations of its
    tangent; for a primitive with multiple results both are lists. As JAX's
    `ad.primitive_jvps`. Most rules are written as a *tangent rule* (below) and adapted.

VJP: `vjp(ct, *operands, out, **params) -> [cotangent per operand]`
    ct is the cotangent of the result (a list of them, one per result, for multiple results;
    None where a result has none), `out` the result(s) of the forward equation, and the rule
    returns one cotangent per operand (None where there is none or it is not wanted).

Both emit core form through `bind`, so what a rule writes is what the generated code reads.
"""
from astjax.core.bind import bind, current_builder
from astjax.core.primitives import RuleTable

from .util import aval, value

JVP = RuleTable("jvp", __doc__.split("VJP:")[0])
VJP = RuleTable("vjp", "vjp(ct, *operands, out, **params) -> [cotangent per operand]")


def tangent_rule(*names):
    """Decorator for a JVP written as its tangent alone:
    `rule(primals, tangents, out, **params) -> tangent` (primals as values: a literal is its
    Python or NumPy value), adapted to the JVP contract."""
    def register(rule):
        for name in names:
            JVP.set(name, _standard(name, rule))
        return rule
    return register


def _standard(name, rule):
    def jvp(primals, tangents, **params):
        out = bind(name, *primals, **params)
        builder = current_builder()
        if builder is not None:
            builder.note = "jvp of"
        return out, rule([value(p) for p in primals], tangents, out, **params)
    return jvp


def linear(name, positions=None):
    """A primitive linear in the operands at `positions` (all by default): its tangent is the
    primitive applied to their tangents, zeros standing in for missing ones."""
    @tangent_rule(name)
    def _rule(primals, tangents, out, **params):
        chosen = range(len(primals)) if positions is None else positions
        if all(tangents[i] is None for i in chosen):
            return None
        args = [(tangents[i] if tangents[i] is not None else zeros_of(primals[i]))
                if i in chosen else primals[i] for i in range(len(primals))]
        return bind(name, *args, **params)
    return _rule


def no_derivative(*names):
    """Primitives whose results carry no derivative (comparisons, integer results, rounding):
    a zero tangent forward, no cotangent backward."""
    tangent_rule(*names)(lambda primals, tangents, out, **params:
                         [None] * len(out) if isinstance(out, list) else None)
    VJP.register(*names)(lambda ct, *operands, out, **params: [None] * len(operands))


def add_all(terms):
    """The sum of the terms that are not None (None when all are)."""
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = bind("add", total, t)
    return total


def zeros_of(x):
    """Zeros shaped and typed as x (a plain 0.0 for a Python scalar)."""
    a = aval(x)
    return bind("full", 0, shape=a.shape, dtype=a.dtype.name) if a is not None else 0.0
