"""Control flow, inlined into the function that uses it: `if`/`elif` for cond and switch,
`while True:` for while_loop, `for` for scan.  Carries live in locals (one scalar per element
of a small carry, else an array), assigned all at once at the end of each iteration; scan's
stacked outputs and the tapes of taped while loops are written into arrays allocated before
the loop (a tape grows by doubling: its length is known only when the loop ends)."""

from astjax.core.dims import single_symbol, spelling
from astjax.core.ir import Var

from .block import Hoist
from .emit import EMIT, dtype_text, tuple_text
from .lanes import LANE_BLOCK, blocked_lanes, lane_axis
from .values import Array, Unrolled, View, is_small, mapped, text


def _indent(lines: list, depth: int = 1) -> list:
    return ["    " * depth + line for line in lines]


def _branch(fe, func, args, slots) -> list:
    block = fe.child()
    outs = block.inline(func, args)
    block.assign(slots, outs)
    return block.lines or ["pass"]


def emit_cond(fe, eqn):
    args = [fe.value(a) for a in eqn.ins[1:]]
    then_fn, else_fn = eqn.params["branches"]
    pred = fe.scalar(fe.value(eqn.ins[0]))
    slots = [fe.slot(v, fe.base_name(v, "cond")) for v in eqn.outs]
    fe.lines.append(f"if {pred}:{fe.comment(eqn)}")
    fe.lines += _indent(_branch(fe, then_fn, args, slots))
    fe.lines.append("else:")
    fe.lines += _indent(_branch(fe, else_fn, args, slots))
    for var, slot in zip(eqn.outs, slots):
        fe.bind(var, slot)


def emit_switch(fe, eqn):
    """JAX's rule: the index is clamped into range."""
    branches = eqn.params["branches"]
    args = [fe.value(a) for a in eqn.ins[1:]]
    k = fe.fresh("branch")
    fe.lines.append(f"{k} = min(max(int({fe.scalar(fe.value(eqn.ins[0]))}), 0), "
                    f"{len(branches) - 1}){fe.comment(eqn)}")
    slots = [fe.slot(v, fe.base_name(v, "switch")) for v in eqn.outs]
    for j, func in enumerate(branches):
        last = j == len(branches) - 1
        fe.lines.append("else:" if last else f"{'if' if j == 0 else 'elif'} {k} == {j}:")
        fe.lines += _indent(_branch(fe, func, args, slots))
    for var, slot in zip(eqn.outs, slots):
        fe.bind(var, slot)


def _slots(fe, outs, params) -> list:
    """Carry locals named after the loop body's parameters (the user's names)."""
    return [fe.slot(v, p.hint or fe.base_name(v, "carry")) for v, p in zip(outs, params)]


def _hoist(fe, body_func, carries: int, parity: str) -> Hoist:
    """Where a loop body's arrays are allocated once (see Block.allocate)."""
    carried = [o.id for o in body_func.outs[:carries] if isinstance(o, Var)]
    return Hoist(carried, parity)


def emit_while(fe, eqn):
    lanes = blocked_lanes(eqn, fe.made) if fe.module.target == "cpu" and not fe.fn.serial \
        else None
    if lanes is not None and single_symbol(lanes) in fe.module.sizes:
        _emit_blocked_while(fe, eqn, lanes)
        return
    slots = _while_loop(fe, eqn, [fe.value(a) for a in eqn.ins])
    for var, slot in zip(eqn.outs, slots):
        fe.bind(var, slot)


def _while_loop(fe, eqn, args) -> list:
    """The loop's lines, its carries starting from `args`; returns the carries' slots."""
    body_func = eqn.params["body"]
    slots = _slots(fe, eqn.outs, body_func.params)
    fe.assign(slots, args)
    flip = fe.fresh("flip")
    hoist = _hoist(fe, body_func, len(eqn.outs), flip)
    test = _loop_test(fe, eqn.params["cond"], slots, hoist)
    body = fe.child()
    body.loop = hoist
    body.assign(slots, body.inline(body_func, slots))
    fe.lines += hoist.lines + [f"{flip} = True", f"while True:{fe.comment(eqn)}"]
    fe.lines += _indent(test + body.lines + [f"{flip} = not {flip}"])
    return slots


def _emit_blocked_while(fe, eqn, lanes):
    """A batched while loop run to completion on one block of lanes after another (see
    lanes.py): a parallel loop over blocks, the loop itself inside on the block's rows (its
    nests serial), each block's final carries copied into the results' rows."""
    body_func = eqn.params["body"]
    values = [fe.value(a) for a in eqn.ins]
    lead = [lane_axis(var.aval.shape, lanes) for var in eqn.outs]
    unchanged = [o is p for o, p in zip(body_func.outs, body_func.params)]
    for value, on_lanes in zip(values, lead):
        if on_lanes and not _filled(value):
            fe.materialise(value)  # once, before the blocks read their rows of it
    results = {}
    for k, var in enumerate(eqn.outs):
        if lead[k] and not unchanged[k] and (fe.users.get(var.id) or var.id in fe.results):
            results[k] = fe.own_name(var, "while")
            shape = tuple_text([text(d) for d in var.aval.shape])
            fe.allocate(var, results[k], f"np.empty({shape}, {dtype_text(var.aval.dtype)})")
    n = text(lanes)
    blk, lo, hi, m = (fe.fresh(base) for base in ("block", "lo", "hi", "lanes"))
    fe.lines.append(f"for {blk} in numba.prange(-(-{n} // {LANE_BLOCK})):{fe.comment(eqn)}")
    inner = fe.child()
    inner.lines += [f"{lo} = {blk} * {LANE_BLOCK}", f"{hi} = min({lo} + {LANE_BLOCK}, {n})",
                    f"{m} = {hi} - {lo}"]
    serial, fe.fn.serial = fe.fn.serial, True
    try:
        with spelling({**fe.module.sizes, single_symbol(lanes): m}):
            args = [_rows(inner, v, on_lanes, lo, hi) for v, on_lanes in zip(values, lead)]
            slots = _while_loop(inner, eqn, args)
            for k, target in results.items():
                inner.lines += inner.copy_loop(target, slots[k], lo)
    finally:
        fe.fn.serial = serial
    fe.lines += _indent(inner.lines)
    fe.parallel = True
    for k, var in enumerate(eqn.outs):
        if k in results:
            fe.bind(var, Array(var.aval, results[k]))
        elif unchanged[k]:
            fe.bind(var, values[k])


def _filled(value) -> bool:
    return isinstance(value, View) and value.fill is not None


def _rows(fe, value, on_lanes: bool, lo: str, hi: str):
    """A block's rows of an initial carry: a view of its array, or a block of its fill."""
    if not on_lanes:
        return value
    if _filled(value):
        name = fe.fresh("filled")
        fe.lines.append(f"{name} = np.full({tuple_text([text(d) for d in value.shape])}, "
                        f"{value.fill}, {dtype_text(value.aval.dtype)})")
    else:
        array = fe.materialise(value)  # (made before the blocks: a name here)
        name = fe.fresh(array + "_rows")
        fe.lines.append(f"{name} = {array}[{lo}:{hi}]")
    return Array(value.aval, name)


def _loop_test(fe, cond, slots, hoist) -> list:
    block = fe.child()
    block.loop = hoist
    pred = block.scalar(block.inline(cond, slots)[0])
    return block.lines + [f"if not {pred}:", "    break"]


def emit_while_taped(fe, eqn):
    """Records each carry at the start of every iteration (the reverse sweep's tape)."""
    n = len(eqn.ins)
    carries, tapes = eqn.outs[:n], eqn.outs[n:]
    slots = _slots(fe, carries, eqn.params["body"].params)
    fe.assign(slots, [fe.value(a) for a in eqn.ins])
    count = fe.fresh("trips")
    names = [fe.own_name(v, "tape") for v in tapes]
    fe.lines.append(f"{count} = 0{fe.comment(eqn)}")
    for name, var in zip(names, carries):
        shape = tuple_text(["16"] + [text(d) for d in var.aval.shape])
        fe.lines.append(f"{name} = np.empty({shape}, {dtype_text(var.aval.dtype)})")
    hoist = _hoist(fe, eqn.params["body"], n, f"{count} % 2 == 1")
    test = _loop_test(fe, eqn.params["cond"], slots, hoist)
    record = [f"{name} = rt.room_for({name}, {count})" for name in names]
    for name, slot in zip(names, slots):
        record += _store_row(fe, name, count, slot)
    body = fe.child()
    body.loop = hoist
    body.lines += record + [f"{count} += 1"]
    body.assign(slots, body.inline(eqn.params["body"], slots))
    fe.lines += hoist.lines + ["while True:"] + _indent(test + body.lines)
    for var, slot in zip(carries, slots):
        fe.bind(var, slot)
    for var, name in zip(tapes, names):
        final = fe.fresh(name)
        fe.lines.append(f"{final} = {name}[:{count}]")
        fe.bind(var, Array(var.aval, final))


def _store_row(fe, target: str, t: str, value) -> list:
    """target[t] = value, element by element for unrolled values."""
    if isinstance(value, Unrolled):
        if not value.shape:
            return [f"{target}[{t}] = {value.elems[0]}"]
        from .values import all_indices
        return [f"{target}[{t}, {', '.join(map(str, index))}] = {elem}"
                for index, elem in zip(all_indices(value.shape), value.elems)]
    if isinstance(value, Array):  # (a row: not by slice assignment, see rt.put)
        return [f"rt.put({target}[{t}], {value.name})" if value.shape
                else f"{target}[{t}] = {value.name}"]
    loops = [fe.fresh(f"j{a}") for a in range(len(value.shape))]
    lines = [("    " * a) + f"for {v} in range({text(d)}):"
             for a, (v, d) in enumerate(zip(loops, value.shape))]
    lines.append("    " * len(loops) + f"{target}[{t}, {', '.join(loops)}] = "
                 f"{fe.read(value, loops)}")
    return lines


def emit_scan(fe, eqn):
    p = eqn.params
    nc, nk = p["num_consts"], p["num_carry"]
    values = [fe.value(a) for a in eqn.ins]
    consts, xs = values[:nc], values[nc + nk:]
    carries, ys = eqn.outs[:nk], eqn.outs[nk:]
    slots = _slots(fe, carries, p["body"].params[nc:nc + nk])
    fe.assign(slots, values[nc:nc + nk])
    t, n = fe.fresh("t"), fe.fresh("length")
    length = p["length"] if p["length"] >= 0 else f"{fe.materialise(xs[0])}.shape[0]"
    fe.lines.append(f"{n} = {length}{fe.comment(eqn)}")
    y_names = []
    for var in ys:
        name = fe.own_name(var, "ys")
        rest = [text(d) for d in var.aval.shape[1:]]
        fe.lines.append(f"{name} = np.empty({tuple_text([n] + rest)}, "
                        f"{dtype_text(var.aval.dtype)})")
        y_names.append(name)
    steps = f"range({n} - 1, -1, -1)" if p.get("reverse") else f"range({n})"
    body = fe.child()
    body.loop = _hoist(fe, p["body"], nk, f"{t} % 2 == 0")
    x_ts = []
    for x, var in zip(xs, p["body"].params[nc + nk:]):
        row = mapped(var.aval, x, lambda index, t=t: [t] + list(index))
        if isinstance(x, Array):
            row.array_text = f"{x.name}[{t}]"
        x_ts.append(body.unroll(row) if var.aval.shape == () or
                    (isinstance(x, Array) and is_small(var.aval) and 0 not in var.aval.shape) else row)
    outs = body.inline(p["body"], consts + slots + x_ts)
    for name, y in zip(y_names, outs[nk:]):
        body.lines += _store_row(body, name, t, y)
    body.assign(slots, outs[:nk])
    fe.lines += body.loop.lines + [f"for {t} in {steps}:"] + _indent(body.lines or ["pass"])
    for var, slot in zip(carries, slots):
        fe.bind(var, slot)
    for var, name in zip(ys, y_names):
        fe.bind(var, Array(var.aval, name))


EMIT.set("cond", emit_cond)
EMIT.set("switch", emit_switch)
EMIT.set("while_loop", emit_while)
EMIT.set("while_loop_taped", emit_while_taped)
EMIT.set("scan", emit_scan)
