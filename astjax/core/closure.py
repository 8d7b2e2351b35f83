"""Closing a body over the values it reads from outside, so nested functions take every operand
explicitly (no closures in core form: any backend can compile a branch or loop body alone)."""
from .ir import Eqn, Func, Var


def free_vars(params: list, eqns: list, outs: list) -> list:
    """Vars read by `eqns`/`outs` but defined by neither `params` nor an equation, in order."""
    defined = {v.id for v in params}
    free, seen = [], set()
    for eqn in eqns:
        for atom in eqn.ins:
            _note(atom, defined, seen, free)
        defined.update(v.id for v in eqn.outs)
    for atom in outs:
        _note(atom, defined, seen, free)
    return free


def _note(atom, defined, seen, free):
    if isinstance(atom, Var) and atom.id not in defined and atom.id not in seen:
        seen.add(atom.id)
        free.append(atom)


def close(name: str, params: list, eqns: list, outs: list, captured: list, loc=None) -> Func:
    """A Func taking `params` then one fresh parameter per `captured` outer Var."""
    fresh = {v.id: Var(v.aval, v.hint) for v in captured}
    swap = lambda a: fresh.get(a.id, a) if isinstance(a, Var) else a  # noqa: E731
    body = [Eqn(e.outs, e.prim, [swap(a) for a in e.ins], e.params, e.loc, e.note) for e in eqns]
    return Func(name, list(params) + [fresh[v.id] for v in captured], body,
                [swap(o) for o in outs], loc)


def union(*lists) -> list:
    """The values of all the lists, each once, in order of first appearance."""
    seen, out = set(), []
    for values in lists:
        for v in values:
            if v.id not in seen:
                seen.add(v.id)
                out.append(v)
    return out


def over_outer(func, n_own, own_outer, outer):
    """func re-parameterised as (its own params..., one per value of `outer`): the closures of
    several functions bound together share one list of captured values."""
    mine = {v.id: p for v, p in zip(own_outer, func.params[n_own:])}
    func.params = func.params[:n_own] + [mine.get(v.id) or Var(v.aval, v.hint) for v in outer]
    return func
