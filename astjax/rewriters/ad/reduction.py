"""Derivatives of the reductions, both modes: sums, products and extrema over axes, running
(cumulative) reductions along one axis; argmax/argmin and any/all have none."""
from astjax.core.bind import bind

from .rules import VJP, linear, no_derivative, tangent_rule
from .util import (aval, expand_reduced, extremum_hits, linear_recurrence, shifted,
                   product_of_others, running_source)


@VJP.register("reduce_sum")
def _reduce_sum(ct, x, out, axes):
    return [expand_reduced(ct, x, axes)]


def _extremum(ct, x, out, axes):
    """The cotangent goes to the places that attain the extremum, split evenly among ties."""
    hit = extremum_hits(x, out, axes)
    share = bind("div", ct, bind("reduce_sum", hit, axes=axes))
    return [bind("mul", hit, expand_reduced(share, x, axes))]


VJP.register("reduce_max")(_extremum)
VJP.register("reduce_min")(_extremum)


@VJP.register("reduce_prod")
def _reduce_prod(ct, x, out, axes):
    return [bind("mul", expand_reduced(ct, x, axes), product_of_others(x, axes))]


@VJP.register("cumsum")
def _cumsum(ct, x, out, axis, reverse=False):
    return [bind("cumsum", ct, axis=axis, reverse=not reverse)]


@VJP.register("cumprod")
def _cumprod(ct, x, out, axis, reverse=False):
    """ct_k = out_(k-1) * g_k with g_k = ct_k + x_(k+1) g_(k+1) (the products of the factors
    after k): a linear recurrence run backwards, so nothing is divided by x (JAX's rule is
    finite at a zero too, and so are all higher derivatives here)."""
    step = -1 if reverse else 1
    g = linear_recurrence(shifted(x, axis, -step), ct, axis, reverse=not reverse)
    return [bind("mul", shifted(out, axis, step), g)]


def _cum_extremum(ct, x, out, axis, reverse=False):
    source = running_source(x, out, axis, reverse)
    return [bind("take_along_axis_transpose", ct, source, shape=aval(x).shape, axis=axis)]


VJP.register("cummax")(_cum_extremum)
VJP.register("cummin")(_cum_extremum)


# ---------------------------------------------------------------- forward mode
linear("reduce_sum")
linear("cumsum")
no_derivative("argmax", "argmin", "reduce_and", "reduce_or")


@tangent_rule("reduce_max", "reduce_min")
def _extremum_jvp(p, t, out, axes):
    x, = p
    if t[0] is None:
        return None
    hit = extremum_hits(x, out, axes)
    picked = bind("reduce_sum", bind("mul", hit, t[0]), axes=axes)
    return bind("div", picked, bind("reduce_sum", hit, axes=axes))


@tangent_rule("reduce_prod")
def _reduce_prod_jvp(p, t, out, axes):
    x, = p
    if t[0] is None:
        return None
    return bind("reduce_sum", bind("mul", t[0], product_of_others(x, axes)), axes=axes)


@tangent_rule("cumprod")
def _cumprod_jvp(p, t, out, axis, reverse=False):
    """t_out_i = x_i * t_out_(i-1) + out_(i-1) * t_i: the product rule of out_i = out_(i-1) *
    x_i, a linear recurrence (no division by x)."""
    if t[0] is None:
        return None
    step = -1 if reverse else 1
    return linear_recurrence(p[0], bind("mul", shifted(out, axis, step), t[0]), axis, reverse)


@tangent_rule("cummax", "cummin")
def _cum_extremum_jvp(p, t, out, axis, reverse=False):
    if t[0] is None:
        return None
    source = running_source(p[0], out, axis, reverse)
    return bind("take_along_axis", t[0], source, axis=axis)
