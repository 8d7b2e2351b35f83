"""Which batched while loops may run one block of lanes at a time.

vmap of a while loop whose predicate is batched runs one loop over all lanes while any lane
runs, each finished lane frozen by a `select` (rewriters/batching/control.py).  Swept over a
million lanes, every iteration streams every carry through memory.  Each lane's work depends
on its own row only, so the loop may instead run to completion on one block of lanes (a few
KiB, in cache) before the next: a parallel loop over blocks, the same while loop inside on a
block's rows, and a block stops when its own lanes have finished.  The results are the same:
a frozen lane's carries and running flag do not change in the iterations a block skips,
provided the flag always equals the condition on the lane's carries: the body computes the
new flag from the new carries, and the initial flag must be that same computation on the
initial carries (as the batching rule writes it).  A loop written by hand whose flags start
out different is left to run over all lanes.

`blocked_lanes(eqn)` says whether a while_loop has that form and gives its lane size: the
condition is `reduce_or` of a (lanes,) running flag over its one axis, every carry the body
changes is a `select` of the new value and the old on that flag, and every equation of the
body keeps rows apart (axis 0 is the lane axis wherever the lane size appears)."""
import numpy as np

from astjax.core.dims import DimExpr, single_symbol
from astjax.core.ir import Var
from astjax.core.prims.reduction import REDUCTIONS
from astjax.core.table import get

# lanes per block: the carries of a block of a typical loop stay in the core's L2 cache
LANE_BLOCK = 4096


def blocked_lanes(eqn, made: dict):
    """The lane size (a symbol) when the batched while loop `eqn` may run per block of lanes,
    else None.  `made`: var id -> the equation computing it, in the function holding eqn."""
    cond, body = eqn.params["cond"], eqn.params["body"]
    r = _running_index(cond)
    if r is None:
        return None
    running = body.params[r].aval
    sym = single_symbol(running.shape[0]) if len(running.shape) == 1 else None
    if sym is None or running.dtype.kind != "b":
        return None
    made_in_body = {v.id: e for e in body.eqns for v in e.outs}
    if not _frozen_by(body, r, made_in_body) or not _rows_apart(body, running.shape[0]) or \
            not _flag_starts_as_computed(eqn, r, made_in_body, made):
        return None
    return running.shape[0]


def _running_index(cond):
    """The carry the condition reduces with `any` over its one axis, if that is all it does."""
    if len(cond.eqns) != 1 or len(cond.outs) != 1:
        return None
    eqn = cond.eqns[0]
    if eqn.prim != "reduce_or" or tuple(eqn.params["axes"]) != (0,) or \
            eqn.outs[0] is not cond.outs[0] or not isinstance(eqn.ins[0], Var):
        return None
    return next((k for k, p in enumerate(cond.params) if p is eqn.ins[0]), None)


def _frozen_by(body, r, made) -> bool:
    """Every carry the body changes (other than the flag) is select(flag, new, old)."""
    flag = body.params[r]

    def is_flag(atom) -> bool:
        if atom is flag:
            return True
        e = made.get(atom.id) if isinstance(atom, Var) else None
        return e is not None and e.prim in ("reshape", "broadcast_in_dim") and \
            e.ins[0] is flag and _same(e.outs[0].aval.shape[0], flag.aval.shape[0])

    for k, (out, param) in enumerate(zip(body.outs, body.params)):
        if k == r or out is param:
            continue
        e = made.get(out.id) if isinstance(out, Var) else None
        if e is None or e.prim != "select" or e.ins[2] is not param or not is_flag(e.ins[0]):
            return False
    return True


def _flag_starts_as_computed(eqn, r, made, made_outside) -> bool:
    """Whether the initial flag is computed from the initial carries by the same equations as
    the body computes the new flag from the new carries (compared structurally)."""
    body = eqn.params["body"]
    start = {}  # a carry's new value in the body -> its initial value
    for k, (new, init) in enumerate(zip(body.outs, eqn.ins)):
        if k != r and isinstance(new, Var):
            if start.setdefault(new.id, init) is not init:
                return False  # one value, two carries with different starts
    seen = {}

    def same(b, o) -> bool:
        if not isinstance(b, Var) or not isinstance(o, Var):
            return _same_literal(b, o)
        if b.id in start:
            return start[b.id] is o
        key = (b.id, o.id)
        if key not in seen:
            seen[key] = _same_equation(made.get(b.id), made_outside.get(o.id), b, o, same)
        return seen[key]

    return same(body.outs[r], eqn.ins[r])


def _same_equation(eb, eo, b, o, same) -> bool:
    if eb is None or eo is None or eb.prim != eo.prim or len(eb.ins) != len(eo.ins) or \
            eb.outs.index(b) != eo.outs.index(o):
        return False
    try:
        if not bool(eb.params == eo.params):
            return False
    except (TypeError, ValueError):  # params holding arrays
        return False
    return all(same(x, y) for x, y in zip(eb.ins, eo.ins))


def _same_literal(b, o) -> bool:
    if isinstance(b, Var) or isinstance(o, Var):
        return False
    vb, vo = np.asarray(b.value), np.asarray(o.value)
    return type(b.value) is type(o.value) and vb.dtype == vo.dtype and \
        vb.shape == vo.shape and bool(np.array_equal(vb, vo, equal_nan=True))


def _rows_apart(body, lanes) -> bool:
    """Whether row i of every value the body computes reads row i of its lane operands only:
    the lane size appears only as axis 0, and only equations that keep rows apart touch it."""
    for var in list(body.params) + [v for e in body.eqns for v in e.outs]:
        if _where(var.aval.shape, lanes) == "elsewhere":
            return False
    for eqn in body.eqns:
        outs_lead = [_where(v.aval.shape, lanes) == "lead" for v in eqn.outs]
        ins_lead = [isinstance(a, Var) and _where(a.aval.shape, lanes) == "lead"
                    for a in eqn.ins]
        if not _keeps_rows(eqn, ins_lead, outs_lead):
            return False
    return True


def lane_axis(shape, lanes) -> bool:
    """Whether the lane size is axis 0 of shape (and appears nowhere else)."""
    return _where(shape, lanes) == "lead"


def _where(shape, lanes) -> str:
    """"lead" when axis 0 is the lane size and no other axis holds it, "none" when no axis
    holds it and axis 0 is static, else "elsewhere".  (A size that facts make equal to the
    lane size is another symbol: any symbolic axis 0 but the lane size itself is refused.)"""
    hits = [k for k, d in enumerate(shape)
            if isinstance(d, DimExpr) and lanes.symbols() & d.symbols()]
    if hits == [0] and _same(shape[0], lanes):
        return "lead"
    if hits or (shape and isinstance(shape[0], DimExpr)):
        return "elsewhere"
    return "none"


def _same(a, b) -> bool:
    """The same size expression (compared by structure: `==` on sizes records a fact)."""
    return isinstance(a, DimExpr) and isinstance(b, DimExpr) and a.key == b.key


def _keeps_rows(eqn, ins_lead, outs_lead) -> bool:
    kind = get(eqn.prim).kind
    if kind in ("control", "custom", "effect"):
        return False
    if not any(ins_lead) and not any(outs_lead):
        return kind in ("elementwise", "reduction", "shape")  # cheap, and no threads
    if kind == "elementwise":
        return all(outs_lead) and all(_broadcasts_by_row(a, lead, eqn.outs[0])
                                      for a, lead in zip(eqn.ins, ins_lead))
    if eqn.prim in REDUCTIONS:
        return 0 not in eqn.params["axes"] and all(outs_lead)
    if eqn.prim == "broadcast_in_dim":
        dims = tuple(eqn.params["broadcast_dimensions"])
        if ins_lead[0]:
            return all(outs_lead) and dims[:1] == (0,)
        return 0 not in dims or eqn.ins[0].aval.shape[dims.index(0)] == 1
    if eqn.prim == "reshape":
        return all(ins_lead) and all(outs_lead)
    if eqn.prim == "transpose":
        return eqn.params["permutation"][0] == 0
    return False


def _broadcasts_by_row(atom, lead: bool, out) -> bool:
    """An operand of an elementwise equation on rows: a lane value, or one whose broadcast
    gives every row the same elements (lower rank, or a size-1 axis 0); never one read at
    the absolute row index."""
    shape, rank = atom.aval.shape, len(out.aval.shape)
    if lead:  # (a lower rank would align its lanes with another axis of the result)
        return len(shape) == rank
    return len(shape) < rank or shape[0] == 1
