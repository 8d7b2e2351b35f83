"""Forward-mode rules, registered into the primitive table's rows (`jvp`).

A rule receives the primal operands, their tangents (None for zero), `out=` and the params,
and returns the output's tangent. Nonlinear elementwise rules reuse the derivatives written
once in `vjp_rules`; linear primitives apply themselves to the tangents.
"""
from astjax.core.bind import bind
from astjax.core.primitives import register

from .util import aval, extremum_hits, product_of_others, running_source
from . import vjp_rules


def rule(name):
    def register_rule(fn):
        register("jvp", name, fn)
        return fn
    return register_rule


def _add_all(terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = bind("add", total, t)
    return total


for _name, _derivative in vjp_rules.UNARY_DERIVATIVES.items():
    rule(_name)((lambda d: lambda p, t, out: None if t[0] is None
                 else bind("mul", t[0], d(p[0], out)))(_derivative))

for _name, (_dx, _dy) in vjp_rules.BINARY_DERIVATIVES.items():
    rule(_name)((lambda dx, dy: lambda p, t, out: _add_all([
        None if t[0] is None or dx is None else bind("mul", t[0], dx(p[0], p[1], out)),
        None if t[1] is None or dy is None else bind("mul", t[1], dy(p[0], p[1], out))]))(_dx, _dy))


def linear(name, positions=None):
    """A primitive linear in the operands at `positions` (all by default): its tangent is the
    primitive applied to their tangents, zeros standing in for missing ones."""
    @rule(name)
    def _rule(primals, tangents, out, **params):
        chosen = range(len(primals)) if positions is None else positions
        if all(tangents[i] is None for i in chosen):
            return None
        args = [(tangents[i] if tangents[i] is not None else _zeros(primals[i]))
                if i in chosen else primals[i] for i in range(len(primals))]
        return bind(name, *args, **params)
    return _rule


def _zeros(x):
    a = aval(x)
    return bind("full", 0, shape=a.shape, dtype=a.dtype.name) if a is not None else 0.0


for _name in ("neg", "add", "sub", "reduce_sum", "broadcast_in_dim", "reshape", "transpose",
              "rev", "slice", "concatenate", "pad", "cumsum", "full"):
    linear(_name)
linear("convert")
linear("dynamic_slice", positions=(0,))
linear("dynamic_update_slice", positions=(0, 1))
linear("take", positions=(0,))
linear("take_along_axis", positions=(0,))
linear("take_along_axis_transpose", positions=(0,))
linear("select", positions=(1, 2))
for _name in ("sign", "floor", "ceil", "round", "floor_divide", "stop_gradient", "argmax",
              "argmin", "reduce_and", "reduce_or", "argsort"):
    rule(_name)(lambda p, t, out, **params: None)


@rule("cumprod")
def _cumprod(p, t, out, axis, reverse=False):
    """out * cumsum(t / x): a division, as the reverse rule (a zero in x gives nan)."""
    if t[0] is None:
        return None
    return bind("mul", out, bind("cumsum", bind("div", t[0], p[0]), axis=axis, reverse=reverse))


def _cum_extremum(p, t, out, axis, reverse=False):
    if t[0] is None:
        return None
    source = running_source(p[0], out, axis, reverse)
    return bind("take_along_axis", t[0], source, axis=axis)


rule("cummax")(_cum_extremum)
rule("cummin")(_cum_extremum)


@rule("mul")
def _mul(p, t, out):
    x, y = p
    return _add_all([None if t[0] is None else bind("mul", t[0], y),
                     None if t[1] is None else bind("mul", x, t[1])])


@rule("div")
def _div(p, t, out):
    x, y = p
    num = _add_all([t[0], None if t[1] is None else bind("neg", bind("mul", out, t[1]))])
    return None if num is None else bind("div", num, y)


@rule("dot_general")
def _dot_general(p, t, out, dimension_numbers):
    a, b = p
    return _add_all([
        None if t[0] is None else bind("dot_general", t[0], b, dimension_numbers=dimension_numbers),
        None if t[1] is None else bind("dot_general", a, t[1], dimension_numbers=dimension_numbers)])


@rule("einsum")
def _einsum(p, t, out, subscripts):
    return _add_all([None if d is None else
                     bind("einsum", *[d if j == i else x for j, x in enumerate(p)],
                          subscripts=subscripts) for i, d in enumerate(t)])


@rule("scatter")
def _scatter(p, t, out, axis, mode):
    x, index, updates = p
    if mode not in ("set", "add"):
        return None if all(d is None for d in t) else _unsupported("scatter", mode)
    x_dot = t[0] if t[0] is not None else _zeros(x)
    u_dot = t[2] if t[2] is not None else _zeros(updates)
    return bind("scatter", x_dot, index, u_dot, axis=axis, mode=mode)


def _unsupported(name, detail):
    from astjax.errors import TransformError
    raise TransformError(f"no forward-mode rule for {name} ({detail}) yet")


def _extremum_jvp(p, t, out, axes):
    x, = p
    if t[0] is None:
        return None
    hit = extremum_hits(x, out, axes)
    picked = bind("reduce_sum", bind("mul", hit, t[0]), axes=axes)
    return bind("div", picked, bind("reduce_sum", hit, axes=axes))


rule("reduce_max")(_extremum_jvp)
rule("reduce_min")(_extremum_jvp)


@rule("reduce_prod")
def _reduce_prod(p, t, out, axes):
    x, = p
    if t[0] is None:
        return None
    return bind("reduce_sum", bind("mul", t[0], product_of_others(x, axes)), axes=axes)


@rule("sort")
def _sort(p, t, out, dimension):
    x, = p
    order = bind("argsort", x, dimension=dimension, index_dtype="int64")
    return bind("take_along_axis", t[0], order, axis=dimension)


@rule("clamp")
def _clamp(p, t, out):
    lo, x, hi = p
    inside = bind("bitwise_and", bind("ge", x, lo), bind("le", x, hi))
    return _add_all([
        None if t[0] is None else bind("select", bind("lt", x, lo), t[0], 0.0),
        None if t[1] is None else bind("select", inside, t[1], 0.0),
        None if t[2] is None else bind("select", bind("gt", x, hi), t[2], 0.0)])


for _name in ("eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor",
              "bitwise_not", "is_finite", "iota"):
    rule(_name)(lambda p, t, out, **params: None)
rule("debug_print")(lambda p, t, out, **params: [])
