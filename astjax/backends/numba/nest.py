"""Loop nests: elementwise work, index maps and reductions over one iteration domain, fused.

A `Nest` gathers equations in program order while they fit its domain (a shape; one loop
per axis).  Each member maps its own axes to domain axes (`None`: it does not vary along
that axis), so broadcasts, size-1 reshapes and transposes of members are free aliases.

Reductions come in two forms:
* a *row* reduction reduces the trailing domain axes k.. (the "inner" axes) of a member: its
  result is a scalar per row, usable by later members of the same nest.  The first row
  reduction fixes k; the axes before k are the "outer" axes, looped over once.
* an *accumulating* reduction reduces any other axes into a scalar or an array over its
  kept axes; its result exists only once the whole nest has run.

Within one row, members are computed in *passes*: pass p is one loop over the inner axes.
A member that reads a row reduction of pass p runs in pass p + 1; a member needed in several
passes is recomputed (elementwise work is cheap next to a trip through memory).  Outer
members (varying only along outer axes) are computed once per row, after the pass whose
reductions they read.  Members are stored to memory only when read outside the nest.
"""
import math

import numpy as np

from astjax.core.dims import by_size, known_equal
from astjax.core.prims.elementwise import TRANSCENDENTAL

from . import scalars as E
from . import values as V
from .stages import block_loop, staged_loop
from .values import Array, Unrolled, Value, text


LOOP_NAMES = "ijklmn"
IN_ORDER = "in_order = True"  # marks, for the CUDA backend, a nest whose iterations interact
ROWS = 16  # rows per chunk of a parallel row loop that needs row buffers
# Blocks of a parallel loop whose sums go to per-block partial accumulators (a fixed number,
# so a result does not depend on the machine's thread count).
CHUNKS = 8


class Member:
    """One value of the nest: `kind` is 'elem', 'alias', 'row' or 'acc'."""

    def __init__(self, var, eqn, kind, out_map, in_maps=(), source=None):
        self.var, self.eqn, self.kind = var, eqn, kind
        self.out_map, self.in_maps = tuple(out_map), list(in_maps)
        self.source = source  # alias: the member it renames; reductions: the input member
        self.p = 0
        self.local = None

    @property
    def varying(self) -> set:
        return {a for a in self.out_map if a is not None}


class Reducer:
    """How a reduction accumulates: init(dtype) text, update(acc, v) text, accumulator dtype;
    settled(acc): a test, true once no later value can change the result (any, all)."""

    def __init__(self, init, update, widen=False, parallel_op=None, settled=None):
        self.init, self.update, self.widen, self.parallel_op = init, update, widen, parallel_op
        self.settled = settled

    def acc_dtype(self, dtype):
        dtype = np.dtype(dtype)
        return np.dtype(np.float64) if self.widen and dtype == np.float32 else dtype


REDUCERS: dict = {}  # primitive -> Reducer (filled by reduction.py)


class Nest:
    def __init__(self, fe, shape):
        self.fe = fe
        self.dims = list(shape)
        self.k = None
        self.members: dict = {}
        self.order: list = []
        self.finals: set = set()  # var ids of accumulating reductions (ready after the nest)
        self.eqns: set = set()

    # ------------------------------------------------------------ joining
    def member(self, atom):
        return self.members.get(getattr(atom, "id", None))

    def reads_member(self, eqn) -> bool:
        return any(self.member(a) is not None for a in eqn.ins)

    def reads_final(self, eqn) -> bool:
        return any(getattr(a, "id", None) in self.finals for a in eqn.ins)

    @property
    def rank(self) -> int:
        return len(self.dims)

    def _default_axis(self, j: int, r: int, size, used, leading=False) -> int:
        """The domain axis an output axis j (of r) lands on by right alignment (by left
        alignment when `leading`), or None."""
        a = j if leading else self.rank - r + j
        if a < 0 or a in used:
            return None
        if self.dims[a] == size:
            return a
        if self.dims[a] == 1 and not any(a in m.varying for m in self.order):
            self.dims[a] = size  # the domain grows along an axis nothing varied on yet
            return a
        return None

    def _grow_rank(self, r: int) -> None:
        extra = r - self.rank
        if extra <= 0:
            return
        self.dims = [1] * extra + self.dims
        for m in self.order:
            m.out_map = tuple(None if a is None else a + extra for a in m.out_map)
            m.in_maps = [None if mp is None else tuple(None if a is None else a + extra
                                                       for a in mp) for mp in m.in_maps]
        if self.k is not None:
            self.k += extra

    def join_elementwise(self, eqn, leading=False) -> bool:
        """Join an elementwise equation; `leading`: axes no member fixes are the domain's
        leading ones (a per-row value of a row nest) rather than its trailing ones."""
        out = eqn.outs[0].aval
        if self.reads_final(eqn) or any(d < 0 for d in out.shape):
            return False
        r = len(out.shape)
        self._grow_rank(r)
        out_map = [None] * r
        for atom in eqn.ins:
            m = self.member(atom)
            if m is None:
                continue
            off = r - len(atom.aval.shape)
            for t, a in enumerate(m.out_map):
                if a is None or atom.aval.shape[t] == 1:
                    continue
                if out_map[off + t] not in (None, a):
                    return False
                out_map[off + t] = a
        if len(set(a for a in out_map if a is not None)) != len([a for a in out_map if a is not None]):
            return False
        for j in range(r):
            if out_map[j] is not None or out.shape[j] == 1:
                continue
            varies = any(self.member(a) is None and _varies(a, j, r) for a in eqn.ins)
            if varies:
                a = self._default_axis(j, r, out.shape[j], set(out_map), leading)
                if a is None:
                    return False
                out_map[j] = a
        for j in range(r):  # broadcast axes get a loop too: a stored result is written whole
            if out_map[j] is None and out.shape[j] != 1:
                out_map[j] = self._default_axis(j, r, out.shape[j], set(out_map), leading)
                if out_map[j] is None:
                    return False
        for j, a in enumerate(out_map):
            if a is not None and self.dims[a] != out.shape[j]:
                return False
        in_maps = [_operand_map(atom, out_map, r) for atom in eqn.ins]
        self._add(Member(eqn.outs[0], eqn, "elem", out_map, in_maps))
        return True

    def join_alias(self, eqn, out_map) -> bool:
        source = self.member(eqn.ins[0])
        if source is None or out_map is None or self.reads_final(eqn):
            return False
        self._add(Member(eqn.outs[0], eqn, "alias", out_map, source=source))
        return True

    def join_reduction(self, eqn, axes) -> bool:
        """A reduction of a member (or of a value read at the domain's own positions)."""
        atom = eqn.ins[0]
        if self.reads_final(eqn) or eqn.prim not in REDUCERS:
            return False
        m = self.member(atom)
        shape = atom.aval.shape
        if m is None:
            return False
        reduced = [m.out_map[t] for t in axes if shape[t] != 1]
        if any(a is None for a in reduced) or not reduced:
            return False  # a broadcast axis, or nothing varies: the plain lowering does it
        if _empty_matters(eqn, shape, axes):
            return False
        kept = tuple(m.out_map[t] for t in range(len(shape)) if t not in axes)
        if eqn.prim in ("argmax", "argmin"):
            kept = tuple(m.out_map[t] for t in range(len(shape)) if t != axes[0])
        suffix = sorted(reduced) == list(range(min(reduced), self.rank))
        kept_shape = [d for t, d in enumerate(shape) if t not in axes]
        if any(a is None and d != 1 for a, d in zip(kept, kept_shape)):
            return False
        kept_set = {a for a in kept if a is not None}
        if self.k is None and suffix and all(a < min(reduced) for a in kept_set) \
                and not any(mm.kind == "row" for mm in self.order):
            self.k = min(reduced)
        if self.k is not None and sorted(reduced) == list(range(self.k, self.rank)) \
                and all(a < self.k for a in kept_set):
            self._add(Member(eqn.outs[0], eqn, "row", kept, source=m))
            return True
        if eqn.prim in ("argmax", "argmin"):
            return False
        self._add(Member(eqn.outs[0], eqn, "acc", kept, source=m))
        self.finals.add(eqn.outs[0].id)
        return True

    def absorb(self, other) -> bool:
        """Take in another open nest over the same domain (up to axes of size 1), so that an
        equation reading members of both joins one nest instead of closing the two.  Open
        nests never read each other's members (a read joins or closes), so the two orders
        concatenated are a valid one.  Nests with reductions stay apart (their passes)."""
        if any(m.kind in ("row", "acc", "load") for m in self.order + other.order):
            return False
        mine = [a for a, d in enumerate(self.dims) if not _is_one(d)]
        theirs = [a for a, d in enumerate(other.dims) if not _is_one(d)]
        if len(mine) != len(theirs) or \
                not all(known_equal(self.dims[a], other.dims[b]) for a, b in zip(mine, theirs)):
            return False
        axis = dict(zip(theirs, mine))

        def moved(axes):
            return None if axes is None else tuple(None if a is None else axis[a] for a in axes)
        for m in other.order:
            m.out_map, m.in_maps = moved(m.out_map), [moved(mp) for mp in m.in_maps]
        self.members.update(other.members)
        self.order += other.order
        self.eqns |= other.eqns
        return True

    def join_load(self, atom) -> None:
        """A non-member value read at the domain's own positions (a reduction's input)."""
        r = len(atom.aval.shape)
        self._grow_rank(r)
        out_map = tuple(self.rank - r + t if d != 1 else None for t, d in enumerate(atom.aval.shape))
        self.members[atom.id] = Member(atom, None, "load", out_map, [out_map])
        self.order.append(self.members[atom.id])

    def _add(self, member) -> None:
        self.members[member.var.id] = member
        self.order.append(member)
        self.eqns.add(id(member.eqn))

    # ------------------------------------------------------------ emitting
    def emit(self, stored: set) -> dict:
        """Append the nest's code to fe.lines; returns var id -> Value for the members read
        after it (stored members, reductions)."""
        return NestEmitter(self, stored).emit()


def alias_map(eqn, member):
    """The domain map of a shape equation's result when it only renames the member's axes
    (size-1 reshapes, broadcasts, transposes), else None."""
    shape = eqn.ins[0].aval.shape
    out = eqn.outs[0].aval.shape
    in_map = member.out_map
    if eqn.prim == "transpose":
        return tuple(in_map[p] for p in eqn.params["permutation"])
    if eqn.prim == "broadcast_in_dim":
        out_map = [None] * len(out)
        for src, dst in enumerate(eqn.params["broadcast_dimensions"]):
            out_map[dst] = in_map[src] if shape[src] != 1 else None
        return tuple(out_map)
    if eqn.prim == "reshape":
        kept = [(d, a) for d, a in zip(shape, in_map) if d != 1]
        if [d for d in out if d != 1] != [d for d, _ in kept]:
            return None
        it = iter(a for _, a in kept)
        return tuple(next(it) if d != 1 else None for d in out)
    return None


def unrolled_reduction(fe, eqn, value, axes) -> bool:
    """A reduction of an unrolled value: one expression per result element."""
    from .values import Unrolled, all_indices
    red = REDUCERS.get(eqn.prim)
    shape = eqn.ins[0].aval.shape
    out = eqn.outs[0]
    if red is None or eqn.prim in ("argmax", "argmin") or any(shape[t] == 0 for t in axes):
        return False
    in_dtype = eqn.ins[0].aval.dtype
    acc_dtype = red.acc_dtype(out.aval.dtype)
    value = fe.unroll(value)
    kept = [t for t in range(len(shape)) if t not in axes]
    groups: dict = {}
    for index, elem in zip(all_indices(shape), value.elems):
        groups.setdefault(tuple(index[t] for t in kept), []).append(elem)
    elems = []
    for key in sorted(groups):
        acc = fe.fresh(fe.base_name(out, eqn.prim))
        fe.lines.append(f"{acc} = {red.init(acc_dtype)}{fe.comment(eqn)}")
        for elem in groups[key]:
            fe.lines.append(red.update(acc, E.cast(elem, in_dtype, acc_dtype)))
        if acc_dtype != out.aval.dtype:
            final = fe.fresh(acc + "_r")
            fe.lines.append(f"{final} = {E.cast(acc, acc_dtype, out.aval.dtype)}")
            acc = final
        elems.append(acc)
    fe.bind(out, Unrolled(out.aval, elems))
    return True


def _written(fe) -> tuple:
    """How much a block and the blocks around it have written (lines, prologue lines, and
    materialised values, whose names stay taken)."""
    sizes, block = [len(fe.lines)], fe
    while block is not None:
        sizes += [len(block.prologue), len(block.materialised)]
        block = block.parent
    return tuple(sizes)


def _is_one(d) -> bool:
    return isinstance(d, (int, np.integer)) and d == 1


def _varies(atom, j: int, r: int) -> bool:
    shape = getattr(atom, "aval").shape if hasattr(atom, "aval") else ()
    t = j - (r - len(shape))
    return 0 <= t < len(shape) and shape[t] != 1


def _operand_map(atom, out_map, r):
    shape = atom.aval.shape
    if not shape:
        return ()
    off = r - len(shape)
    return tuple(out_map[off + t] if shape[t] != 1 else None for t in range(len(shape)))


def _empty_matters(eqn, shape, axes) -> bool:
    """max/min/argmax/argmin of an empty (or unknown-length) axis: the plain lowering decides."""
    if eqn.prim in ("reduce_sum", "reduce_prod", "reduce_and", "reduce_or"):
        return False
    return any(shape[t] <= 0 for t in axes)


class NestEmitter:
    def __init__(self, nest: Nest, stored: set):
        self.nest, self.fe = nest, nest.fe
        self.stored = stored
        self.k = nest.k if nest.k is not None else 0
        self.loop = [self.fe.fresh(LOOP_NAMES[a] if a < len(LOOP_NAMES) else f"i{a}")
                     if d != 1 else "0" for a, d in enumerate(nest.dims)]
        self.results: dict = {}
        self.chunk = None  # the block index, when sums go to per-block partials

    # -------------------------------------------------------- planning
    def inner(self, m) -> bool:
        return any(a >= self.k for a in m.varying) and m.kind not in ("row",)

    def _passes(self) -> int:
        last = 0
        for m in self.nest.order:
            deps = self._deps(m)
            if m.kind == "load":
                m.p = 1 if self.inner(m) else 0
            elif m.kind == "alias":
                m.p = m.source.p
            elif m.kind in ("row", "acc"):
                m.p = m.source.p
            elif self.inner(m):
                m.p = max([1] + [d.p + (0 if self.inner(d) else 1) for d in deps])
            else:
                m.p = max([0] + [d.p for d in deps])
            last = max(last, m.p)
        return max(last, 1)

    def _deps(self, m) -> list:
        if m.kind == "load":
            return []
        if m.kind == "elem":
            return [d for d in (self.nest.member(a) for a in m.eqn.ins) if d is not None]
        return [m.source]

    def _needed(self, roots, p: int = 0) -> list:
        """Inner members to compute in pass p for these roots, in program order (a member
        stashed in an earlier pass is read back, not recomputed from its operands)."""
        need, stack = set(), list(roots)
        while stack:
            m = stack.pop()
            if id(m) in need or not self.inner(m):
                continue
            need.add(id(m))
            if self.stash.get(m, p) >= p:
                stack += self._deps(m)
        return [m for m in self.nest.order if id(m) in need]

    def _roots(self, p, stores) -> list:
        order = self.nest.order
        roots = [m for m in order if self.inner(m) and m.p == p and m.var.id in stores]
        return roots + [m.source for m in order if m.kind in ("row", "acc") and m.p == p
                        and self.inner(m.source)]

    def _plan_passes(self, passes, stores) -> dict:
        """pass -> inner members computed in it.  A member that a later pass needs again and
        whose computation calls transcendental math is stashed in a row buffer instead of
        being recomputed (softmax's exp: computed once, read back to normalise)."""
        self.stash = {}
        first = {}
        for p in range(1, passes + 1):
            for m in self._needed(self._roots(p, stores)):
                if id(m) in first and first[id(m)] < p and self._costly(m) \
                        and m.kind == "elem" and m not in self.stash:
                    self.stash[m] = first[id(m)]
                first.setdefault(id(m), p)
        return {p: self._needed(self._roots(p, stores), p) for p in range(1, passes + 1)}

    def _costly(self, m, seen=None) -> bool:
        """Whether computing m again means transcendental math (within this nest's row)."""
        if m.kind != "elem":
            return False
        if m.eqn.prim in TRANSCENDENTAL:  # (worth a row buffer, not a second evaluation)
            return True
        return any(self.inner(d) and self._costly(d) for d in self._deps(m))

    def _stash_index(self) -> str:
        return ", ".join(self.loop[a] for a in range(self.k, self.nest.rank))

    def _stash_buffer(self, m) -> str:
        m.buffer = self.fe.fresh(self.fe.base_name(m.var, m.eqn.prim) + "_row")
        dims = ", ".join(text(self.nest.dims[a]) for a in range(self.k, self.nest.rank))
        return f"{m.buffer} = np.empty(({dims},), {E.dtype_text(m.var.aval.dtype)})"

    # -------------------------------------------------------- code
    def emit(self) -> dict:
        fe, nest = self.fe, self.nest
        passes = self._passes()
        order = nest.order
        if not self.stored:
            return {}
        stores = {m.var.id: self._alloc(m) for m in order
                  if m.var.id in self.stored and m.kind != "acc" and m.var.aval.shape}
        if self._partial_sums(passes):
            self.chunk = fe.fresh("chunk")
        accs = {m.var.id: self._acc_init(m) for m in order if m.kind == "acc"}
        parallel = self.chunk is not None or self._parallel(passes)
        outer = [(a, var) for a, var in enumerate(self.loop[:self.k]) if var != "0"]
        plan = self._plan_passes(passes, stores)
        buffers = [self._stash_buffer(m) for m in self.stash]
        chunked = bool((buffers or self.chunk) and parallel and outer)
        per_row = bool(buffers and outer and fe.module.target == "cuda")  # a thread's own
        if not chunked and not per_row:
            fe.lines += buffers  # row buffers: allocated once, outside the loops
        lines = []
        for n, (a, var) in enumerate(outer):
            ind = "    " * (n + (1 if chunked else 0))
            if chunked and n == 0:  # each thread's chunk of rows gets its own row buffers
                head = self._chunk_loop(a)
                lines += head[:1] + ["    " + b for b in buffers] + head[1:]
                continue
            rng = "numba.prange" if parallel and n == 0 else "range"
            lines.append(ind + f"for {var} in {rng}({self._dim(a)}):")
        depth = len(outer) + (1 if chunked else 0)
        ind = "    " * depth
        body = list(buffers) if per_row else []
        self._outer_slot(0, body, stores, accs)
        for p in range(1, passes + 1):
            rows = [m for m in order if m.kind == "row" and m.p == p]
            for m in rows:
                body.append(self._row_init(m))
            needed = plan[p]
            if needed:
                body += self._inner_loop(p, needed, rows, stores, accs, parallel and not outer)
            for m in rows:
                body += self._row_final(m)
            self._outer_slot(p, body, stores, accs)
        lines += [ind + line for line in body]
        fe.parallel |= parallel
        if fe.module.target == "cuda" and any(m.kind == "acc" for m in order):
            fe.lines.append(IN_ORDER)  # accumulates across the outer loop: one thread
        fe.lines += lines
        if self.chunk is not None:
            accs = {m.var.id: self._combined(m, accs[m.var.id]) for m in order if m.kind == "acc"}
        for m in order:
            if m.var.id in stores:
                self.results[m.var.id] = Array(m.var.aval, stores[m.var.id])
            elif m.kind == "acc" and m.var.id in self.stored:
                self.results[m.var.id] = self._acc_result(m, accs[m.var.id])
            elif m.var.id in self.stored:  # 0-d, computed at function level
                self.results[m.var.id] = Unrolled(m.var.aval, [self._local(m)])
        return self.results

    def _dim(self, a) -> str:
        return text(self.nest.dims[a])

    def _parallel(self, passes) -> bool:
        if self.fe.module.target == "cuda" or self.fe.fn.serial:
            return False  # each iteration of the outer loop becomes a thread instead
        size = math.prod(self.nest.dims)
        if by_size(lambda: size < self._min_parallel_size()) or not self._accs_apart():
            return False
        if self.k >= 1:
            return True
        return not any(m.kind == "row" for m in self.nest.order)

    def _partial_sums(self, passes) -> bool:
        """Whether the nest's first loop runs in parallel over CHUNKS blocks, each adding into
        a copy of its own of every accumulator (summed after the loop): sums along that loop
        (a bias's gradient, a sum down a matrix's columns) otherwise keep the nest serial.
        One pass, sums only, and copies small beside the nest."""
        accs = [m for m in self.nest.order if m.kind == "acc"]
        if self.fe.module.target == "cuda" or self.fe.fn.serial or passes != 1 or not accs \
                or self._accs_apart():
            return False
        if any(m.eqn.prim != "reduce_sum" or not self.inner(m.source) for m in accs) or \
                any(m.kind == "row" for m in self.nest.order):
            return False  # (an acc updated outside the inner loops has no block to add into)
        first = self._first_axis()
        if first is None or any(first in m.out_map for m in accs):
            return False
        size = math.prod(self.nest.dims)
        copies = CHUNKS * sum(math.prod(self.nest.dims[a] for a in m.out_map if a is not None)
                              for m in accs)
        return by_size(lambda: size >= self._min_parallel_size() and 4 * copies <= size)

    def _min_parallel_size(self) -> int:
        """The size from which a parallel loop pays: a nest of arithmetic only is bound by
        memory, and a second thread gains little on it below E.PRANGE_MIN_CHEAP elements
        (while each parallel loop adds about 0.05 s to the compile: rt.parallel's)."""
        costly = any(m.kind == "elem" and m.eqn.prim in E.COSTLY for m in self.nest.order)
        return E.PRANGE_MIN_SIZE if costly else E.PRANGE_MIN_CHEAP

    def _first_axis(self):
        return next((a for a in range(self.nest.rank) if self.loop[a] != "0"), None)

    def _chunk_loop(self, a) -> list:
        """The two loop lines over axis a in blocks: a parallel loop over the blocks (the
        partial sums' CHUNKS, else ROWS rows each, enough to share out), a serial one in it."""
        var, size = self.loop[a], self.nest.dims[a]
        if self.chunk is not None:
            chunk, chunks = self.chunk, CHUNKS
            if isinstance(size, int):
                rows = -(-size // CHUNKS)
            else:  # (named once: the loop's bounds read it three times)
                rows = self.fe.fresh("rows")
                self.fe.lines.append(f"{rows} = -(-{size} // {CHUNKS})")
        else:
            chunk = self.fe.fresh("chunk")
            rows = max(1, min(ROWS, size // 8))
            chunks = -(-size // rows) if isinstance(size, int) else f"-(-{size} // {rows})"
        return [f"for {chunk} in numba.prange({chunks}):",
                f"    for {var} in range({chunk} * {rows}, min({chunk} * {rows} + {rows}, "
                f"{size})):"]

    def _combined(self, m, parts: str) -> str:
        """The accumulator summed over its per-block copies (the leading axis), by loops:
        Numba's `sum(axis=0)` costs 2.4 s of compile (its bounds check formats a message)."""
        fe = self.fe
        dims = [text(self.nest.dims[a]) for a in m.out_map if a is not None]
        name, total = fe.fresh(parts + "_sum"), fe.fresh("total")
        c, j = fe.fresh("c"), fe.fresh("j")
        if not dims:
            fe.lines += [f"{name} = {parts}[0]", f"for {c} in range(1, {CHUNKS}):",
                         f"    {name} += {parts}[{c}]"]
            return name
        size = " * ".join(dims)
        flat = fe.fresh(parts + "_flat")
        fe.lines += [f"{flat} = {parts}.reshape(({CHUNKS}, {size}))",
                     f"{name} = np.empty(({size},), {E.dtype_text(self._acc_dtype(m))})",
                     f"for {j} in range({size}):",
                     f"    {total} = {flat}[0, {j}]",
                     f"    for {c} in range(1, {CHUNKS}):",
                     f"        {total} += {flat}[{c}, {j}]",
                     f"    {name}[{j}] = {total}"]
        if len(dims) == 1:
            return name
        shaped = fe.fresh(parts + "_shaped")
        fe.lines.append(f"{shaped} = {name}.reshape(({', '.join(dims)}))")
        return shaped

    def _accs_apart(self) -> bool:
        """Whether every accumulator is indexed by the axis of the nest's first loop (the one
        a parallel loop runs over): then each of that loop's iterations adds into slots of its
        own (a gradient's sum over j of pair (i, j) terms, per i), and the loop may be
        parallel."""
        accs = [m for m in self.nest.order if m.kind == "acc"]
        if not accs:
            return True
        first = self._first_axis()
        return first is not None and all(first in m.out_map for m in accs)

    def _own_index(self, out_map, shape):
        return [self.loop[a] if a is not None else 0 for a in out_map][:len(shape)] \
            if shape else []

    def _index_for(self, in_map, shape):
        return [0 if (d == 1 or a is None) else self.loop[a] for a, d in zip(in_map, shape)]

    def _alloc(self, m) -> str:
        name = self.fe.own_name(m.var, m.eqn.prim if m.eqn else "x")
        dims = ", ".join(text(d) for d in m.var.aval.shape)
        shape = f"({dims},)" if len(m.var.aval.shape) == 1 else f"({dims})"
        allocation = f"np.empty({shape}, {E.dtype_text(m.var.aval.dtype)})"
        self.fe.allocate(m.var, name, allocation)
        return name

    def _store_line(self, m, stores) -> str:
        index = [self.loop[a] if a is not None else "0" for a in m.out_map]
        return f"{stores[m.var.id]}[{', '.join(index)}] = {self._local(m)}"

    def _local(self, m) -> str:
        while m.kind == "alias":
            m = m.source
        return m.local

    def _read(self, atom, in_map) -> str:
        """The element of an operand at the current position of the loops."""
        m = self.nest.member(atom)
        if m is not None and (m.kind != "load" or self._local(m) is not None):
            return self._local(m)
        if not hasattr(atom, "id"):
            value = np.asarray(atom.value)
            if value.ndim == 0:
                return E.scalar_literal(value.item(), atom.aval.dtype)
        v = self.fe.value(atom)
        index = self._index_for(in_map, atom.aval.shape) if atom.aval.shape else []
        return self.fe.read(v, index)

    def _compute(self, m, out) -> None:
        if m.kind == "load":
            m.local = self.fe.fresh(self.fe.base_name(m.var, "x") + "_i")
            value = self.fe.env[m.var.id]
            out.append(f"{m.local} = {self.fe.read(value, self._index_for(m.out_map, m.var.aval.shape))}")
            return
        texts = [self._read(a, mp or ()) for a, mp in zip(m.eqn.ins, m.in_maps)]
        m.local = self.fe.fresh(self.fe.base_name(m.var, m.eqn.prim) + "_i")
        expression = self._by_reciprocal(m, texts) or E.scalar_expression(m.eqn, texts, self.fe)
        out.append(f"{m.local} = {expression}{self.fe.comment(m.eqn)}")

    def _by_reciprocal(self, m, texts):
        """x / d with d the same along the inner loop (a row's norm or sum): x * (1 / d), the
        reciprocal hoisted out of the loop (as XLA does), so the loop multiplies.  None
        otherwise."""
        if m.eqn.prim != "div" or not self.inner(m) or m.var.aval.dtype.kind != "f":
            return None
        divisor, in_map = m.eqn.ins[1], m.in_maps[1] or ()
        d = self.nest.member(divisor)
        row_invariant = (not self.inner(d)) if d is not None else \
            all(a is None or a < self.k for a in in_map)
        if not row_invariant or not hasattr(divisor, "id"):
            return None
        op = E.ScalarOp(m.eqn, texts, self.fe)
        return f"{op.arg(0)} * ({E.scalar_literal(1, op.dtype)} / {op.arg(1)})"

    def _outer_slot(self, p, body, stores, accs) -> None:
        for m in self.nest.order:
            if self.inner(m) or m.p != p:
                continue
            if m.kind in ("elem", "load"):
                self._compute(m, body)
            if m.var.id in stores:
                body.append(self._store_line(m, stores))
            if m.kind == "acc" and not self.inner(m.source):
                body += self._acc_update(m, accs[m.var.id])

    def _inner_loop(self, p, needed, rows, stores, accs, parallel) -> list:
        staged = staged_loop(self, p, needed, stores, parallel)
        if staged is not None:
            return staged
        inner_axes = [a for a in range(self.k, self.nest.rank) if self.loop[a] != "0"]
        split = self._split_loop(p, needed, rows, stores, accs, inner_axes, parallel)
        if split is not None:
            return split
        head = self._loop_heads(inner_axes, parallel)
        ind = "    " * len(head)
        body = self._body(p, needed, rows, stores, accs)
        lines = head + [ind + line for line in body]
        settled = self._settled(stores, accs, parallel)
        if settled:
            for depth in range(len(head), 0, -1):  # out of every loop, innermost first
                lines += ["    " * depth + f"if {settled}:", "    " * depth + "    break"]
        return lines

    def _loop_heads(self, axes, parallel) -> list:
        """The `for` lines of the loops over `axes`, each indented into the one before (the
        first parallel, in blocks where sums go to per-block partials)."""
        head = []
        for n, a in enumerate(axes):
            if n == 0 and parallel and self.chunk is not None:
                head += self._chunk_loop(a)
                continue
            rng = "numba.prange" if parallel and n == 0 else "range"
            head.append("    " * len(head) + f"for {self.loop[a]} in {rng}({self._dim(a)}):")
        return head

    def _body(self, p, needed, rows, stores, accs) -> list:
        """The lines of one position of pass p's loop."""
        body = []
        for m in needed:
            stashed = self.stash.get(m)
            if stashed is not None and stashed < p:
                m.local = self.fe.fresh(self.fe.base_name(m.var, m.eqn.prim) + "_i")
                body.append(f"{m.local} = {m.buffer}[{self._stash_index()}]")
            elif m.kind in ("elem", "load"):
                self._compute(m, body)
            if stashed == p:
                body.append(f"{m.buffer}[{self._stash_index()}] = {m.local}")
            if m.var.id in stores and m.p == p:
                body.append(self._store_line(m, stores))
        for m in rows:
            body += self._row_update(m)
        for m in self.nest.order:
            if m.kind == "acc" and m.p == p and self.inner(m.source):
                body += self._acc_update(m, accs[m.var.id])
        return body

    def _split_loop(self, p, needed, rows, stores, accs, inner_axes, parallel):
        """Pass p's loop with its innermost loop cut in three, or None: where reads are
        guarded along that loop (padding: a gradient of a slice, a stencil), the first and
        last few positions keep their guards, and the interior, where every guard holds, is
        written without them, so LLVM vectorises it (a 1M-element three-point stencil: 0.15
        against 0.83 ms on one thread). A parallel loop's interior runs in blocks over
        unsigned indices (see stages.py). Elementwise nests only: no reductions or row
        buffers, whose state the edges would share."""
        if not inner_axes or rows or accs or self.stash or self.chunk is not None or \
                self.fe.module.target == "cuda":
            return None
        if not any(isinstance(self.fe.env.get(getattr(x, "id", None)), V.View)
                   for m in needed if m.kind == "elem" for x in m.eqn.ins):
            return None  # (guarded reads are views)
        a = inner_axes[-1]
        var, size = self.loop[a], self.nest.dims[a]
        fn = self.fe.fn
        comments = fn.last_line  # (each body below comments the same user lines)
        names, written = (set(fn.namer.used), dict(fn.namer._next)), _written(self.fe)
        with V.probing() as guards:
            self._body(p, needed, rows, stores, accs)
        if _written(self.fe) == written:  # (the trial wrote nothing: its names are free)
            fn.namer.used, fn.namer._next = names
        fn.last_line = comments
        mine = [(offset, bound) for v, offset, bound in guards if v == var]
        tails = [size + offset - bound for offset, bound in mine]
        if not mine or not all(isinstance(t, (int, np.integer)) for t in tails):
            return None
        first, tail = max([0] + [-o for o, _ in mine]), max([0] + [int(t) for t in tails])
        with V.interior(var, first, size - tail):
            middle = self._body(p, needed, rows, stores, accs)
        fn.last_line = comments
        edge = self._body(p, needed, rows, stores, accs)
        head = self._loop_heads(inner_axes[:-1], parallel)
        ind = "    " * len(head)
        n, stop = self._dim(a), self.fe.fresh("stop")
        lines = [f"{stop} = max({first}, {n} - {tail})",
                 f"for {var} in range(min({first}, {n})):"] + ["    " + x for x in edge]
        if parallel and not head:
            blocks, lo, hi = block_loop(self.fe, first, stop, "numba.prange")
            lines += blocks + [f"    for {var} in range({lo}, {hi}):"] + \
                ["        " + x for x in middle]
        else:
            lines += [f"for {var} in range({first}, {stop}):"] + ["    " + x for x in middle]
        lines += [f"for {var} in range({stop}, {n}):"] + ["    " + x for x in edge]
        return head + [ind + line for line in lines]

    def _settled(self, stores, accs, parallel):
        """The test after which a serial nest that only computes one any/all may stop: a
        batched while loop's test reads a million flags, and while any lane runs the first
        flags already decide it."""
        found = [m for m in self.nest.order if m.kind in ("row", "acc")]
        if parallel or stores or self.k or len(found) != 1 or found[0].varying \
                or self.fe.module.target == "cuda":
            return None
        m = found[0]
        settled = self._reducer(m).settled
        return settled(m.local if m.kind == "row" else accs[m.var.id]) if settled else None

    # -------------------------------------------------------- reductions
    def _reducer(self, m):
        return REDUCERS[m.eqn.prim]

    def _arg(self, m) -> bool:
        return m.eqn.prim in ("argmax", "argmin")

    def _acc_dtype(self, m):
        """Sums and products accumulate in the result's dtype (float32 widened); arg
        reductions keep the best value seen, in the operand's."""
        dtype = m.eqn.ins[0].aval.dtype if self._arg(m) else m.var.aval.dtype
        return self._reducer(m).acc_dtype(dtype)

    def _row_init(self, m) -> str:
        red = self._reducer(m)
        acc_dtype = self._acc_dtype(m)
        m.local = self.fe.fresh(self.fe.base_name(m.var, m.eqn.prim))
        if self._arg(m):
            m.best = self.fe.fresh(m.local + "_at")
            return f"{m.local}, {m.best} = {red.init(acc_dtype)}, -1"
        return f"{m.local} = {red.init(acc_dtype)}"

    def _value_for(self, m) -> str:
        v = self._local(m.source)
        return E.cast(v, m.eqn.ins[0].aval.dtype, self._acc_dtype(m))

    def _row_update(self, m) -> list:
        red = self._reducer(m)
        if self._arg(m):
            axis = m.source.out_map[m.eqn.params["axis"]]
            return red.update(m.local, self._value_for(m), m.best, self.loop[axis])
        return [red.update(m.local, self._value_for(m))]

    def _row_final(self, m) -> list:
        if self._arg(m):
            out = self.fe.fresh(m.local + "_index")
            line = f"{out} = {E.cast(m.best, np.int64, m.var.aval.dtype)}"
            m.local = out
            return [line]
        acc_dtype = self._acc_dtype(m)
        if acc_dtype == m.var.aval.dtype:
            return []
        out = self.fe.fresh(m.local + "_r")
        line = f"{out} = {E.cast(m.local, acc_dtype, m.var.aval.dtype)}"
        m.local = out
        return [line]

    def _acc_init(self, m) -> str:
        red = self._reducer(m)
        acc_dtype = self._acc_dtype(m)
        name = self.fe.fresh(self.fe.base_name(m.var, m.eqn.prim) + "_acc")
        kept = [self.nest.dims[a] for a in m.out_map if a is not None]
        if self.chunk is not None:
            kept = [CHUNKS] + kept
        if not kept:
            self.fe.lines.append(f"{name} = {red.init(acc_dtype)}")
        else:
            dims = ", ".join(text(d) for d in kept)
            self.fe.lines.append(f"{name} = np.full(({dims},), {red.init(acc_dtype)}, "
                                 f"{E.dtype_text(acc_dtype)})")
        return name

    def _acc_update(self, m, acc) -> list:
        red = self._reducer(m)
        kept = [self.loop[a] for a in m.out_map if a is not None]
        if self.chunk is not None:
            kept = [self.chunk] + kept
        target = f"{acc}[{', '.join(kept)}]" if kept else acc
        if not kept:
            return [red.update(acc, self._value_for(m))]
        tmp = red.update("_ACC_", self._value_for(m))
        return [tmp.replace("_ACC_", target)]

    def _acc_result(self, m, acc) -> Value:
        acc_dtype = self._acc_dtype(m)
        aval = m.var.aval
        kept_axes = [a for a in m.out_map if a is not None]
        name = self.fe.own_name(m.var, m.eqn.prim)
        if not aval.shape:
            self.fe.lines.append(f"{name} = {E.cast(acc, acc_dtype, aval.dtype)}")
            return Unrolled(aval, [name])
        source = acc if acc_dtype == aval.dtype else f"{acc}.astype({E.dtype_text(aval.dtype)})"
        dims = ", ".join(text(d) for d in aval.shape)
        shape = f"({dims},)" if len(aval.shape) == 1 else f"({dims})"
        if not kept_axes:  # every kept axis has size 1: the accumulator is a scalar
            value = E.cast(acc, acc_dtype, aval.dtype)
            self.fe.lines.append(f"{name} = np.full({shape}, {value})")
        elif len(kept_axes) == len(aval.shape):
            self.fe.lines.append(f"{name} = {source}")
        else:
            self.fe.lines.append(f"{name} = {source}.reshape({shape})")
        return Array(aval, name)
