"""Clean-ups on core form: dead-code elimination (no unused temporaries) and common
subexpression elimination (shared work computed once)."""
import numpy as np

from .ir import Eqn, Func, Var, sub_funcs
from .primitives import get


def effectful(eqn: Eqn) -> bool:
    """Never removed or merged: its kind is "effect" (it does something besides its result),
    or a nested function of it (a branch, a loop body) has such an equation."""
    if get(eqn.prim).kind == "effect":
        return True
    return any(effectful(e) for f in sub_funcs(eqn) for e in f.eqns)


def eliminate_dead_code(func: Func) -> Func:
    live = {o.id for o in func.outs if isinstance(o, Var)}
    kept = []
    for eqn in reversed(func.eqns):
        if effectful(eqn) or any(v.id in live for v in eqn.outs):
            eqn = prune_loop(eqn, live)
            kept.append(_simplify_nested(eqn, eliminate_dead_code))
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    return Func(func.name, func.params, kept[::-1], func.outs, func.loc)


def _reads(func: Func, outs: list) -> set:
    """The ids of `func`'s params that computing `outs` (and its effects) reads."""
    live = {o.id for o in outs if isinstance(o, Var)}
    for eqn in reversed(func.eqns):
        if effectful(eqn) or any(v.id in live for v in eqn.outs):
            live.update(a.id for a in eqn.ins if isinstance(a, Var))
    return {p.id for p in func.params} & live


def prune_loop(eqn: Eqn, live: set) -> Eqn:
    """A scan or while loop without the results nobody reads: an unread stacked output is
    not computed, and an unread carry that no kept part of the loop reads is not carried."""
    if eqn.prim == "scan":
        return _prune_scan(eqn, live)
    if eqn.prim == "while_loop":
        return _prune_while(eqn, live)
    return eqn


def _live_carries(carry_params: list, wanted: list, reads) -> list:
    """Carries to keep: those wanted, and (to a fixed point) those the kept part reads."""
    while True:
        read = reads(wanted)
        more = [w or p.id in read for w, p in zip(wanted, carry_params)]
        if more == wanted:
            return wanted
        wanted = more


def _prune_scan(eqn: Eqn, live: set) -> Eqn:
    p, body = eqn.params, eqn.params["body"]
    n_consts, n_carry = p["num_consts"], p["num_carry"]
    used = [o.id in live for o in eqn.outs]
    ys_kept = used[n_carry:]

    def reads(carries):
        return _reads(body, [o for o, k in zip(body.outs, carries + ys_kept) if k])

    carries = _live_carries(body.params[n_consts:n_consts + n_carry], used[:n_carry], reads)
    out_kept = carries + ys_kept
    read = reads(carries)
    xs_kept = [q.id in read for q in body.params[n_consts + n_carry:]]
    if xs_kept and not any(xs_kept) and _length_from_xs(p["length"]):
        xs_kept[0] = True  # (the scan's only record of its length)
    in_kept = [q.id in read for q in body.params[:n_consts]] + carries + xs_kept
    if all(out_kept) and all(in_kept):
        return eqn
    n_tape = p.get("num_tape", 0)
    new_body = Func(body.name, _kept(body.params, in_kept), body.eqns,
                    _kept(body.outs, out_kept), body.loc)
    params = dict(p, body=new_body, num_consts=sum(in_kept[:n_consts]), num_carry=sum(carries))
    if n_tape:
        params["num_tape"] = sum(out_kept[len(out_kept) - n_tape:])
    return Eqn(_kept(eqn.outs, out_kept), "scan", _kept(eqn.ins, in_kept), params, eqn.loc,
               eqn.note)


def _length_from_xs(length) -> bool:
    """A length of -1: the scan's length is its xs' (known when it runs: a while loop's tape)."""
    return isinstance(length, (int, np.integer)) and length < 0


def _prune_while(eqn: Eqn, live: set) -> Eqn:
    p, body, cond = eqn.params, eqn.params["body"], eqn.params["cond"]
    cond_read = _reads(cond, cond.outs)
    by_cond = [q.id in cond_read for q in cond.params]

    def reads(carries):  # as ids of the body's params (the condition has its own)
        read = _reads(body, _kept(body.outs, carries))
        return read | {q.id for q, c in zip(body.params, by_cond) if c}

    carries = _live_carries(body.params, [o.id in live for o in eqn.outs], reads)
    if all(carries):
        return eqn
    new_body = Func(body.name, _kept(body.params, carries), body.eqns,
                    _kept(body.outs, carries), body.loc)
    new_cond = Func(cond.name, _kept(cond.params, carries), cond.eqns, cond.outs, cond.loc)
    return Eqn(_kept(eqn.outs, carries), "while_loop", _kept(eqn.ins, carries),
               dict(p, body=new_body, cond=new_cond), eqn.loc, eqn.note)


def _kept(items: list, mask: list) -> list:
    return [x for x, k in zip(items, mask) if k]


def _simplify_nested(eqn: Eqn, simplify_body) -> Eqn:
    if not any(True for _ in sub_funcs(eqn)):
        return eqn
    params = {}
    for key, value in eqn.params.items():
        if isinstance(value, Func):
            value = simplify_body(value)
        elif isinstance(value, tuple) and any(isinstance(v, Func) for v in value):
            value = tuple(simplify_body(v) if isinstance(v, Func) else v for v in value)
        params[key] = value
    return Eqn(eqn.outs, eqn.prim, eqn.ins, params, eqn.loc, eqn.note)


def eliminate_common_subexpressions(func: Func) -> Func:
    """An equation that repeats an earlier one (same primitive, operands and params) is
    dropped and its results replaced by the earlier results: shared work is computed once."""
    env, seen, kept = {}, {}, []
    read = lambda a: env.get(a.id, a) if isinstance(a, Var) else a  # noqa: E731
    for eqn in func.eqns:
        eqn = Eqn(eqn.outs, eqn.prim, [read(a) for a in eqn.ins], eqn.params, eqn.loc, eqn.note)
        key = _key(eqn)
        if key is not None and key in seen:
            env.update({o.id: prev for o, prev in zip(eqn.outs, seen[key])})
            continue
        if key is not None:
            seen[key] = eqn.outs
        kept.append(_simplify_nested(eqn, eliminate_common_subexpressions))
    return Func(func.name, func.params, kept, [read(o) for o in func.outs], func.loc)


def _key(eqn: Eqn):
    if effectful(eqn) or any(True for _ in sub_funcs(eqn)):
        return None
    try:
        params = tuple(sorted(eqn.params.items()))
        hash(params)
    except TypeError:
        return None
    return (eqn.prim, tuple(_atom_key(a) for a in eqn.ins), params)


def _atom_key(atom):
    if isinstance(atom, Var):
        return ("var", atom.id)
    value = atom.value
    if isinstance(value, np.ndarray):  # equal small constants built apart are one constant
        if value.size <= 4096:
            return ("array", value.dtype.str, value.shape, value.tobytes())
        return ("array", id(value))
    return ("literal", type(value).__name__, repr(value))


def simplify(func: Func) -> Func:
    return eliminate_dead_code(eliminate_common_subexpressions(func))
