"""Contractions out of scans: per-step matrix products that need no carry become one product
over every step, outside the loop.

A scan runs its body once per step, so a matrix product in it is a small one, paid `length`
times. Two kinds need no step-by-step order:

- **xs-only products.** A `dot_general` or `einsum` reading only the step's slices of xs and
  the scan's constants (an RNN's input projection `x @ wx`) is computed for every step at once
  before the loop: the part of the body it needs is batched over the scan's axis (by vmap's
  rules) and the body reads its slice of the result, as it reads xs.
- **Accumulated products.** A carry updated as `c + product(a, b)` and read nowhere else (a
  reverse sweep's weight gradient `w_bar + h.T @ z_bar`) is dropped from the loop: the loop
  stacks the step's operands (or reads them from xs), and after it one product with the step
  axis contracted as well adds every step's term to the carry's start.

Both trade a small product per step for one large one, which BLAS and XLA run several times
faster per flop, at the cost of the stacked values' memory (bounded by HOIST_BYTES). The
result differs from the loop's only by the order of a sum.
"""
import numpy as np

from astjax.core.bind import Builder, bind, building
from astjax.core.dims import DimExpr, by_size
from astjax.core.inline import inline
from astjax.core.closure import free_vars
from astjax.core.ir import Eqn, Func, Var, sub_funcs
from astjax.core.prims.control import stacked
from astjax.core.simplify import effectful, eliminate_dead_code, prune_loop

from .ad.residuals import nbytes
from .batching.vmap import vmap_func

CONTRACTIONS = ("dot_general", "einsum")

# Stacks a rewrite adds (results of hoisted products, operands of accumulated ones) stay
# below this many bytes in all: beyond it the loop's small products cost less than the memory.
HOIST_BYTES = 1 << 28


def optimize_scans(func: Func) -> Func:
    """func with every scan's xs-only and accumulated products moved out of its loop (nested
    bodies first). Returns func itself when it has no scan."""
    if not _has_scan(func):
        return func
    builder = Builder()
    with building(builder):
        for eqn in func.eqns:
            eqn = _in_bodies(eqn)
            if eqn.prim == "scan" and _known_length(eqn.params["length"]):
                builder.loc, builder.note = eqn.loc, eqn.note
                eqn = _hoist_xs_only(eqn)
                builder.loc, builder.note = eqn.loc, eqn.note  # (inlining moved them)
                _emit_accumulations(eqn, builder)
            else:
                builder.eqns.append(eqn)
    return Func(func.name, func.params, builder.eqns, func.outs, func.loc)


def _has_scan(func: Func) -> bool:
    return any(e.prim == "scan" or any(_has_scan(f) for f in sub_funcs(e)) for e in func.eqns)


def _in_bodies(eqn: Eqn) -> Eqn:
    """eqn with optimize_scans applied to its nested bodies."""
    params, changed = {}, False
    for key, value in eqn.params.items():
        if isinstance(value, Func):
            new = optimize_scans(value)
        elif isinstance(value, tuple) and any(isinstance(v, Func) for v in value):
            new = tuple(optimize_scans(v) if isinstance(v, Func) else v for v in value)
        else:
            new = value
        changed = changed or new is not value
        params[key] = new
    return Eqn(eqn.outs, eqn.prim, eqn.ins, params, eqn.loc, eqn.note) if changed else eqn


def _known_length(length) -> bool:
    """A length of -1 (the reverse of a while loop) is known only when the scan runs."""
    return isinstance(length, DimExpr) or (isinstance(length, (int, np.integer)) and length > 0)


# ------------------------------------------------------------------------- the scan's parts
class _Scan:
    """A scan equation's operands and body, by role."""

    def __init__(self, eqn: Eqn):
        p = eqn.params
        self.eqn, self.body, self.length = eqn, p["body"], p["length"]
        self.nc, self.ncar, self.ntape = p["num_consts"], p["num_carry"], p.get("num_tape", 0)
        params = self.body.params
        self.consts = params[:self.nc]
        self.carries = params[self.nc:self.nc + self.ncar]
        self.xs = params[self.nc + self.ncar:]
        self.xs_ids = {q.id for q in self.xs}
        # a body param -> the scan's operand for it (the whole xs array for an xs)
        self.operand = {q.id: a for q, a in zip(params, eqn.ins)}

    def rebuilt(self, params, eqns, outs, ins, eqn_outs, num_carry):
        """The scan equation with a new body and operands (num_tape unchanged), without the
        work and the constants and xs the new body no longer needs."""
        body = eliminate_dead_code(Func(self.body.name, params, eqns, outs, self.body.loc))
        new = dict(self.eqn.params, body=body, num_carry=num_carry)
        eqn = Eqn(eqn_outs, "scan", ins, new, self.eqn.loc, self.eqn.note)
        return prune_loop(eqn, {v.id for v in eqn_outs})


def _fits(values: list, length) -> bool:
    """Whether `values` stacked `length` times stay within HOIST_BYTES."""
    return by_size(lambda: length * nbytes(values) <= HOIST_BYTES)


# ------------------------------------------------------------------------- xs-only products
def _hoist_xs_only(eqn: Eqn) -> Eqn:
    """eqn with its body's xs-only contractions computed before it (emitted into the current
    builder) and read by the body as extra xs."""
    scan = _Scan(eqn)
    candidates, products = _step_free_eqns(scan)
    if not products or not _fits([v for e in products for v in e.outs], scan.length):
        return eqn
    wanted = [v for e in products for v in e.outs]
    needed = eliminate_dead_code(Func("", [], candidates, wanted)).eqns
    inputs = free_vars([], needed, wanted)  # (the constants and slices of xs they read)
    part = Func(f"{scan.body.name}_all_steps", inputs, needed, wanted, scan.body.loc)
    try:
        batched = vmap_func(part, [q.id in scan.xs_ids for q in inputs], scan.length)
    except Exception:  # (a rewrite for speed that cannot be made leaves the loop as it is)
        return eqn
    all_steps = inline(batched, [scan.operand[q.id] for q in inputs])
    hoisted = {id(e) for e in products}
    eqns = [e for e in scan.body.eqns if id(e) not in hoisted]
    # the products' results become params of the body: the equations reading them are unchanged
    return scan.rebuilt(scan.body.params + wanted, eqns, scan.body.outs,
                        list(eqn.ins) + all_steps, eqn.outs, scan.ncar)


def _step_free_eqns(scan: _Scan) -> tuple:
    """(the body's equations that need no carry, in order; the contractions among them that
    read a slice of xs). Such an equation reads only constants, literals, slices of xs and
    (through earlier ones) values computed from them: batched over xs, it is the same work."""
    invariant = {q.id for q in scan.consts}
    varying = set(scan.xs_ids)
    found, products = [], []
    for e in scan.body.eqns:
        if effectful(e) or any(True for _ in sub_funcs(e)):
            continue
        ids = {a.id for a in e.ins if isinstance(a, Var)}
        if not ids <= invariant | varying:
            continue
        found.append(e)
        if ids & varying:
            varying.update(v.id for v in e.outs)
            if e.prim in CONTRACTIONS:
                products.append(e)
        else:
            invariant.update(v.id for v in e.outs)
    return found, products


# ------------------------------------------------------------------------- accumulations
def _emit_accumulations(eqn: Eqn, builder: Builder) -> None:
    """Emit eqn without its accumulated-product carries, then each carry's total."""
    scan = _Scan(eqn)
    found = _accumulations(scan)
    stacks = _stacked_operands(scan, found)
    new_ys = [v for v in stacks.values() if v is not None and v.id not in scan.xs_ids]
    if not found or not _fits(new_ys, scan.length):
        builder.eqns.append(eqn)
        return
    new_eqn, ys_stacks = _without_carries(scan, {j for j, _, _ in found},
                                          {id(u) for _, u, _ in found}, new_ys)
    builder.eqns.append(new_eqn)
    whole = dict(scan.operand)
    whole.update({v.id: s for v, s in zip(new_ys, ys_stacks)})
    for j, _, product in found:
        total = _all_steps(product, stacks, whole, scan)
        start = eqn.ins[scan.nc + j]
        builder.eqns.append(Eqn([eqn.outs[j]], "add", [start, total], {}, eqn.loc, eqn.note))


def _without_carries(scan: _Scan, dropped: set, updates: set, new_ys: list) -> tuple:
    """(the scan without the carries `dropped` and their `updates`, stacking `new_ys` after
    its own ys (before a tape); the Vars of those stacks)."""
    eqn, body = scan.eqn, scan.body
    keep = [j for j in range(scan.ncar) if j not in dropped]
    ys_end = len(body.outs) - scan.ntape
    outs = ([body.outs[j] for j in keep] + body.outs[scan.ncar:ys_end] + new_ys
            + body.outs[ys_end:])
    params = scan.consts + [scan.carries[j] for j in keep] + scan.xs
    ins = (list(eqn.ins[:scan.nc]) + [eqn.ins[scan.nc + j] for j in keep]
           + list(eqn.ins[scan.nc + scan.ncar:]))
    ys_stacks = [Var(stacked(v.aval, scan.length), v.hint) for v in new_ys]
    eqn_outs = ([eqn.outs[j] for j in keep] + eqn.outs[scan.ncar:ys_end] + ys_stacks
                + eqn.outs[ys_end:])
    eqns = [e for e in body.eqns if id(e) not in updates]
    return scan.rebuilt(params, eqns, outs, ins, eqn_outs, len(keep)), ys_stacks


def _accumulations(scan: _Scan) -> list:
    """[(carry index, its `add` equation, the product equation)] for each carry updated as
    carry + product and read by nothing else."""
    body = scan.body
    defined = {v.id: e for e in body.eqns for v in e.outs}
    reads = _read_counts(body)
    found = []
    for j, (carry, out) in enumerate(zip(scan.carries, body.outs)):
        update = defined.get(out.id) if isinstance(out, Var) else None
        if (update is None or update.prim != "add" or reads.get(carry.id, 0) != 1
                or reads.get(out.id, 0) != 1):
            continue
        others = [a for a in update.ins if not (isinstance(a, Var) and a.id == carry.id)]
        if len(others) != 1 or not isinstance(others[0], Var):
            continue
        term = others[0]
        product = defined.get(term.id)
        # (the product cannot read the carry: the carry's one reader is this update, whose
        # one reader is the body's output)
        if (product is not None and product.prim in CONTRACTIONS and _linear_form(product)
                and reads[term.id] == 1  # (else the step computes it anyway)
                and tuple(term.aval.shape) == tuple(carry.aval.shape)
                and term.aval.dtype == carry.aval.dtype):
            found.append((j, update, product))
    return found


def _linear_form(product: Eqn) -> bool:
    """A product the rewrite can sum over steps: an einsum with an explicit output."""
    return product.prim == "dot_general" or "->" in product.params.get("subscripts", "")


def _read_counts(body: Func) -> dict:
    counts = {}
    for e in body.eqns:
        for a in e.ins:
            if isinstance(a, Var):
                counts[a.id] = counts.get(a.id, 0) + 1
    for o in body.outs:
        if isinstance(o, Var):
            counts[o.id] = counts.get(o.id, 0) + 1
    return counts


def _stacked_operands(scan: _Scan, found: list) -> dict:
    """Per operand id of the accumulated products: the operand, which the loop stacks (or, for
    a slice of xs, reads from xs), or None for a constant: the same every step."""
    consts = {q.id for q in scan.consts}
    stacks = {}
    for _, _, product in found:
        for a in product.ins:
            if isinstance(a, Var):
                stacks[a.id] = None if a.id in consts else a
    return stacks


def _all_steps(product: Eqn, stacks: dict, whole: dict, scan: _Scan):
    """Every step's term of an accumulated product, summed: the product with the steps'
    axis contracted too (a constant operand is shared by all steps)."""
    args, varying = [], []
    for a in product.ins:
        if isinstance(a, Var) and stacks.get(a.id) is not None:
            args.append(whole[a.id])
            varying.append(True)
        else:
            args.append(scan.operand[a.id] if isinstance(a, Var) else a.value)
            varying.append(False)
    if product.prim == "einsum":
        return bind("einsum", *args, subscripts=_with_step_label(
            product.params["subscripts"], varying))
    if all(varying):
        (lc, rc), (lb, rb) = product.params["dimension_numbers"]
        shift = lambda dims: tuple(d + 1 for d in dims)  # noqa: E731
        dims = (((0,) + shift(lc), (0,) + shift(rc)), (shift(lb), shift(rb)))
        return bind("dot_general", *args, dimension_numbers=dims)
    # one operand varies: the product is linear in it, so its steps are summed first
    args = [bind("reduce_sum", x, axes=(0,)) if v else x for x, v in zip(args, varying)]
    return bind("dot_general", *args, **product.params)


def _with_step_label(subscripts: str, varying: list) -> str:
    """An einsum's subscripts with a new label, summed away, on each varying operand."""
    inputs, output = subscripts.split("->")
    used = set(subscripts)
    label = next(c for c in "tsuvwqrpzyxabcdefghijklmnoTSUVWQRPZYXABCDEFGHIJKLMNO"
                 if c not in used)
    terms = [label + t.strip() if v else t.strip() for t, v in zip(inputs.split(","), varying)]
    return ",".join(terms) + "->" + output.strip()
