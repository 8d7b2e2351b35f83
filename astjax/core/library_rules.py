"""Derivative rules for library functions: `with_jvp(name, fun, jvp, *args)` is fun(*args)
recorded as one `custom_jvp_call`, so autodiff uses the rule jvp(primals, tangents) ->
(outputs, output tangents) instead of differentiating fun's own equations.

It is the library's form of `astjax.custom_jvp`: fun and jvp are library code (no Python
control flow on arrays), so they run directly on abstract values, never interpreted. Used where
fun is an iteration whose derivative is known in closed form (incomplete gamma functions).
"""
import threading

import numpy as np

from .bind import aval, bind, current_builder
from .build import build_body
from .closure import close, free_vars, over_outer, union
from ..tree_util import tree_flatten, tree_structure, tree_unflatten


def with_jvp(name: str, fun, jvp, *args):
    if current_builder() is None:
        with np.errstate(all="ignore"):  # (masked-off lanes may divide by zero: harmless)
            return fun(*args)
    if name in _building.names:  # the rule calls the function itself: its own equations, then
        return fun(*args)
    n = len(args)
    avals = [aval(a) for a in args]
    out_tree = []
    primal = _closed(name, lambda *a: _remember(out_tree, fun(*a)), avals)
    _building.names.add(name)
    try:
        rule = _closed(f"{name}_jvp", lambda *pt: _flat_pair(jvp(pt[:n], pt[n:])),
                       avals + avals)
    finally:
        _building.names.discard(name)
    outer = union(primal[1], rule[1])
    fun_f = over_outer(primal[0], n, primal[1], outer)
    jvp_f = over_outer(rule[0], 2 * n, rule[1], outer)
    outs = bind("custom_jvp_call", *args, *outer, fun=fun_f, jvp=jvp_f, num_args=n)
    return tree_unflatten(out_tree[0], outs)


class _Building(threading.local):
    def __init__(self):
        self.names = set()  # the functions whose rules are being built, on this thread


_building = _Building()


def _remember(box, result):
    box.append(tree_structure(result))
    return result


def _flat_pair(result):
    out, tangent = result
    return tuple(tree_flatten(out)[0]) + tuple(tree_flatten(tangent)[0])


def _closed(name, fn, avals):
    body = build_body(fn, tree_structure(tuple(range(len(avals)))), avals)
    captured = free_vars(body.params, body.eqns, body.outs)
    return close(name, body.params, body.eqns, body.outs, captured), captured
