"""Concrete core form from symbolic: every size replaced by its value for one call.

For a backend that needs concrete shapes (XLA compiles per shape; a backend whose emitter is not
size-generic), `concretize(func, env)` gives the same function with plain int sizes, each symbol
taking its size in `env` (its witness when absent). The front end does not run again.
"""
import numpy as np

from .avals import AVal
from .dims import DimExpr
from .ir import Eqn, Func, Lit, Var


def concretize(func: Func, env: dict = None) -> Func:
    if not _has_symbols(func):
        return func
    return _Concretizer(env or {}).func(func)


class _Concretizer:
    def __init__(self, env: dict):
        self.vars: dict = {}
        self.env = env

    def size(self, d):
        return d.evaluate(self.env) if isinstance(d, DimExpr) else d

    def func(self, func: Func) -> Func:
        params = [self.var(v) for v in func.params]
        eqns = [self.eqn(e) for e in func.eqns]
        return Func(func.name, params, eqns, [self.atom(o) for o in func.outs], func.loc)

    def eqn(self, eqn: Eqn) -> Eqn:
        params = {k: self.param(v) for k, v in eqn.params.items()}
        return Eqn([self.var(v) for v in eqn.outs], eqn.prim, [self.atom(a) for a in eqn.ins],
                   params, eqn.loc, eqn.note)

    def var(self, v: Var) -> Var:
        new = self.vars.get(v.id)
        if new is None:
            a = v.aval
            shape = tuple(self.size(d) for d in a.shape)
            new = self.vars[v.id] = Var(AVal(shape, a.dtype, a.weak), v.hint)
            new.origin = v.origin
        return new

    def atom(self, atom):
        if isinstance(atom, Var):
            return self.var(atom)
        if isinstance(atom, Lit) and isinstance(atom.value, DimExpr):
            return Lit(self.size(atom.value))
        return atom

    def param(self, value):
        if isinstance(value, Func):
            return self.func(value)
        if isinstance(value, DimExpr):
            return self.size(value)
        if isinstance(value, tuple):
            return tuple(self.param(v) for v in value)
        if isinstance(value, list):
            return [self.param(v) for v in value]
        return value


def _has_symbols(func: Func) -> bool:
    if any(_symbolic(p.aval.shape) for p in func.params):
        return True
    for eqn in func.eqns:
        if any(_symbolic(v.aval.shape) for v in eqn.outs) or _symbolic_param(eqn.params) or \
                any(isinstance(a, Lit) and isinstance(a.value, DimExpr) for a in eqn.ins):
            return True
    return False


def _symbolic(shape) -> bool:
    return any(isinstance(d, DimExpr) for d in shape)


def _symbolic_param(value) -> bool:
    if isinstance(value, DimExpr):
        return True
    if isinstance(value, Func):
        return _has_symbols(value)
    if isinstance(value, dict):
        return any(_symbolic_param(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return any(_symbolic_param(v) for v in value)
    return False


def size_sources(func: Func) -> list:
    """(symbol, parameter index, axis) of every symbolic size of the function's parameters:
    where a call's arguments give each symbol its value."""
    out = []
    for v in func.params:
        for d in v.aval.shape:
            if isinstance(d, DimExpr):
                out += [(s, s.source[0], s.source[1]) for s in d.symbols() if s.source]
    return out


def sizes_of(sources: list, args) -> tuple:
    """The concrete value of each symbol of `size_sources` in these arguments."""
    try:
        return tuple([args[i].shape[axis] for _, i, axis in sources])
    except AttributeError:  # (a Python scalar or list among them: slower, and rare)
        return tuple([np.shape(args[i])[axis] for _, i, axis in sources])


def size_env(sources: list, sizes: tuple) -> dict:
    """Each symbol of `size_sources` with its value in `sizes` (what `concretize` and a fact's
    check take)."""
    return {sym: n for (sym, _, _), n in zip(sources, sizes)}
