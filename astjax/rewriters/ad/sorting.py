"""Derivatives of sorting: sort moves each tangent with its element; argsort has none."""
from astjax.core.bind import bind

from .rules import VJP, no_derivative, tangent_rule
from .util import aval


@VJP.register("sort")
def _sort(ct, x, out, dimension):
    order = bind("argsort", x, dimension=dimension, index_dtype="int64")
    return [bind("take_along_axis_transpose", ct, order, shape=aval(x).shape, axis=dimension)]


@tangent_rule("sort")
def _sort_jvp(p, t, out, dimension):
    x, = p
    order = bind("argsort", x, dimension=dimension, index_dtype="int64")
    return bind("take_along_axis", t[0], order, axis=dimension)


no_derivative("argsort")
