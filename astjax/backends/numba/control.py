"""Numba lowerings of control flow: each nested Func is its own `@njit` function, called from
a plain `if` / `while` / `for` (Numba compiles calls between jitted functions directly).

Carries keep one type through a loop because every value is exactly its aval's dtype and a
C-contiguous array (see numba_lowering's contract).
"""

from .emit import LOWER, dtype_text


def assign(outs: list, call: str) -> str:
    """`a, b = call` (a bare call when nothing is bound; Funcs return one value bare)."""
    return f"{', '.join(outs)} = {call}" if outs else call


def call(fn: str, args: list) -> str:
    return f"{fn}({', '.join(args)})"


def lower_cond(fe, eqn, ins, outs):
    then_fn, else_fn = (fe.sub(b) for b in eqn.params["branches"])
    return [f"if {ins[0]}:",
            "    " + assign(outs, call(then_fn, ins[1:])),
            "else:",
            "    " + assign(outs, call(else_fn, ins[1:]))]


def lower_switch(fe, eqn, ins, outs):
    """JAX's rule: the index is clamped into range."""
    branches = [fe.sub(b) for b in eqn.params["branches"]]
    k = fe.fresh("branch")
    lines = [f"{k} = min(max(int({ins[0]}), 0), {len(branches) - 1})"]
    for j, fn in enumerate(branches):
        head = "else:" if j == len(branches) - 1 else f"{'if' if j == 0 else 'elif'} {k} == {j}:"
        lines += [head, "    " + assign(outs, call(fn, ins[1:]))]
    return lines


def lower_while(fe, eqn, ins, outs):
    cond, body = fe.sub(eqn.params["cond"]), fe.sub(eqn.params["body"])
    return [f"{c} = {x}" for c, x in zip(outs, ins)] + [
            f"while {call(cond, outs)}:",
            "    " + assign(outs, call(body, outs))]


def lower_while_taped(fe, eqn, ins, outs):
    """A while loop that records each carry at the start of every iteration, then stacks them
    (length = trip count, known only at run time)."""
    n = len(ins)
    carry, tapes = outs[:n], outs[n:]
    cond, body = fe.sub(eqn.params["cond"]), fe.sub(eqn.params["body"])
    lists = [fe.fresh(c + "_list") for c in carry]
    lines = [f"{c} = {x}" for c, x in zip(carry, ins)]
    lines += [f"{lst} = [{c} for _ in range(0)]" for lst, c in zip(lists, carry)]
    lines += [f"while {call(cond, carry)}:"]
    lines += [f"    {lst}.append({c})" for lst, c in zip(lists, carry)]
    lines += ["    " + assign(carry, call(body, carry))]
    for tape, lst, c, var in zip(tapes, lists, carry, eqn.outs[:n]):
        shape = f"(len({lst}),) + {c}.shape" if var.aval.shape else f"len({lst})"
        k = fe.fresh("k")
        lines += [f"{tape} = np.empty({shape}, {dtype_text(var.aval.dtype)})",
                  f"for {k} in range(len({lst})):",
                  f"    {tape}[{k}] = {lst}[{k}]"]
    return lines


def lower_scan(fe, eqn, ins, outs):
    p = eqn.params
    nc, nk = p["num_consts"], p["num_carry"]
    consts, init, xs = ins[:nc], ins[nc:nc + nk], ins[nc + nk:]
    carry, ys = outs[:nk], outs[nk:]
    body = fe.sub(p["body"])
    t, n = fe.fresh("t"), fe.fresh("length")
    lines = [f"{c} = {x}" for c, x in zip(carry, init)]
    lines.append(f"{n} = {p['length'] if p['length'] >= 0 else xs[0] + '.shape[0]'}")
    y_avals = p["body"].out_avals[nk:]
    for y, aval in zip(ys, y_avals):
        lines.append(f"{y} = np.empty(({n},) + {tuple(aval.shape)!r}, {dtype_text(aval.dtype)})")
    steps = f"range({n} - 1, -1, -1)" if p.get("reverse") else f"range({n})"
    step_ys = [fe.fresh(y + "_t") for y in ys]
    lines.append(f"for {t} in {steps}:")
    step_xs = [f"{x}[{t}]" for x in xs]
    lines.append("    " + assign(carry + step_ys, call(body, consts + carry + step_xs)))
    lines += [f"    {y}[{t}] = {y_t}" for y, y_t in zip(ys, step_ys)]
    return lines


LOWER.set("cond", lower_cond)
LOWER.set("switch", lower_switch)
LOWER.set("while_loop", lower_while)
LOWER.set("while_loop_taped", lower_while_taped)
LOWER.set("scan", lower_scan)
