"""An elementwise loop of much math, run in stages over blocks of elements.

A loop body that chains several transcendental functions (tanh, exp, sin, log1p, ...) holds
more live vectors and constants than AVX2's sixteen registers: LLVM spills, and the loop
runs slower than its parts. Cut in stages over a block of BLOCK elements, each stage a
loop of its own, with the values one stage hands the next kept in a block-sized buffer that
stays in the L1 cache, it runs faster: the shared bench's chain (tanh, exp, sin, log1p over
4M floats) in two stages took 4.8 against 5.15 ms on two threads (see WEIGHT for the cuts
tried; five stages of one function each were slower again).

Only a rank-1 nest of elementwise work alone is staged (no reductions, no row buffers), with
at least MIN_FUNCTIONS such functions (the gain was measured on four; two heavy ones alone
are left as they are). The
block's loops run over unsigned indices: with a signed start Numba's index wraparound kept
LLVM from vectorising them (30 ms).
"""
import re

from astjax.core.prims.elementwise import TRANSCENDENTAL

from . import scalars as E

BLOCK = 4096
# What each function costs in a float32 loop, in ms over 4M elements on one thread (measured
# in the chain: log1p 3.5, sin 2.4, tanh 1.7, exp 1.5; the others by their kind), and how much
# one stage takes. The chain's stages are then [tanh, exp, sin] and [log1p]: 4.78-4.82 ms
# against 5.13-5.18 for one loop, where [tanh, exp], [sin], [log1p] took 5.04-5.24 and
# [tanh, exp], [sin, log1p] 5.27 (kernels writing a given output, two threads, one process).
WEIGHT = {"exp": 1.5, "exp2": 1.5, "expm1": 1.6, "tanh": 1.7, "logistic": 1.7, "sinh": 1.8,
          "cosh": 1.8, "sin": 2.4, "cos": 2.4, "log": 3.0, "log2": 3.0, "log10": 3.0,
          "log1p": 3.5, "tan": 3.0, "cbrt": 2.0}
OTHER_WEIGHT = 3.5  # inverse trigonometric and hyperbolic, erf, pow, lgamma, ...
BUDGET = 6.0
MIN_FUNCTIONS = 3


def staged_loop(em, p: int, needed: list, stores: dict, parallel: bool):
    """The lines of pass p's loop in stages, or None where it is not staged (see the module
    docstring). `em` is the nest's emitter."""
    if not _qualifies(em, needed):
        return None
    users = _users(em, needed)
    stage = _assign(em, needed, users)
    count = max(stage.values()) + 1
    if count < 2:
        return None
    used = {id(m): {stage[id(u)] for u in users[id(m)]} for m in needed}  # in these stages
    handed = [m for m in needed if m.kind == "elem" and max(used[id(m)], default=0) > stage[id(m)]]
    fe, i = em.fe, em.loop[0]
    lines, lo, hi = block_loop(fe, 0, em._dim(0), "numba.prange" if parallel else "range")
    buffers = {}
    for m in handed:
        buffers[id(m)] = fe.fresh(fe.base_name(m.var, m.eqn.prim) + "_block")
        lines.append(f"    {buffers[id(m)]} = rt.empty(({BLOCK},), "
                     f"{E.dtype_text(m.var.aval.dtype)})")
    for s in range(count):
        body = []
        for m in needed:
            if stage[id(m)] != s and id(m) in buffers and s in used[id(m)]:
                m.local = fe.fresh(fe.base_name(m.var, m.eqn.prim) + "_i")
                body.append(f"{m.local} = {buffers[id(m)]}[{i} - {lo}]")
            elif m.kind == "load" and s in used[id(m)] or stage[id(m)] == s \
                    and m.kind in ("elem", "load"):
                em._compute(m, body)
            if stage[id(m)] == s and id(m) in buffers:
                body.append(f"{buffers[id(m)]}[{i} - {lo}] = {m.local}")
            if stage[id(m)] == s and m.var.id in stores and m.p == p:
                body.append(em._store_line(m, stores))
        if not all(_index_only(line, i) for line in body):
            return None  # (the index as a value: it stays signed in the plain loop)
        lines.append(f"    for {i} in range({lo}, {hi}):")
        lines += ["        " + line for line in body]
    return lines


def block_loop(fe, first: int, stop: str, rng: str) -> tuple:
    """(lines, lo, hi): the loop over blocks of BLOCK positions of [first, stop), `rng` its
    range ("numba.prange" for threads), each block's bounds in `lo` and `hi`. They are
    unsigned: with a signed start Numba's index wraparound kept LLVM from vectorising the
    loops over a block."""
    block, lo, hi = fe.fresh("block"), fe.fresh("lo"), fe.fresh("hi")
    start = f"{first} + {block} * {BLOCK}" if first else f"{block} * {BLOCK}"
    span = f"{stop} - {first}" if first else stop
    return [f"for {block} in {rng}(({span} + {BLOCK - 1}) // {BLOCK}):",
            f"    {lo} = np.uintp({start})",
            f"    {hi} = np.uintp(min({start} + {BLOCK}, {stop}))"], lo, hi


def _qualifies(em, needed) -> bool:
    nest = em.nest
    return (em.fe.module.target == "cpu" and nest.rank == 1 and em.k == 0
            and em.loop[0] != "0" and em.chunk is None and not em.stash
            and all(m.kind in ("elem", "load", "alias") for m in nest.order)
            and sum(map(_is_math, needed)) >= MIN_FUNCTIONS
            and sum(_weight(m) for m in needed) > BUDGET)


def _is_math(m) -> bool:
    return m.kind == "elem" and m.eqn.prim in TRANSCENDENTAL


def _weight(m) -> float:
    return WEIGHT.get(m.eqn.prim, OTHER_WEIGHT) if _is_math(m) else 0.0


def _assign(em, needed, users) -> dict:
    """id(member) -> its stage. The functions fill stages in program order, a stage closing
    before a function that would take it past BUDGET. Other work on their results goes in
    the first stage its operands allow (tanh(x) * exp(-x*x) hands one value on, not two);
    work on the loop's inputs alone goes in the first stage that uses it (3x is computed
    where sin(3x) is, not handed on)."""
    stage, s, load = {}, 0, 0.0
    for m in needed:
        if _is_math(m):
            if load and load + _weight(m) > BUDGET:
                s, load = s + 1, 0.0
            load += _weight(m)
            stage[id(m)] = s
    for m in needed:  # on results: as early as their operands allow
        results = [stage[id(d)] for d in map(_source, em._deps(m)) if id(d) in stage]
        if id(m) not in stage and results:
            stage[id(m)] = max(results)
    for m in reversed(needed):  # on inputs alone: as late as their first use
        if id(m) not in stage:
            stage[id(m)] = min((stage[id(u)] for u in users[id(m)]), default=0)
    return stage


def _users(em, needed) -> dict:
    """id(member) -> the members of the loop that read it (through aliases too)."""
    users = {id(m): [] for m in needed}
    for u in needed:
        for d in {id(_source(d)): _source(d) for d in em._deps(u)}.values():
            if id(d) in users:
                users[id(d)].append(u)
    return users


def _source(m):
    while m is not None and m.kind == "alias":
        m = m.source
    return m


def _index_only(line: str, i: str) -> bool:
    """Whether the loop index appears in `line` only inside subscripts."""
    rest = line.split("#", 1)[0]  # (the comment quotes the user's line)
    while True:
        stripped = re.sub(r"\[[^\[\]]*\]", "", rest)
        if stripped == rest:
            break
        rest = stripped
    return re.search(rf"\b{re.escape(i)}\b", rest) is None
