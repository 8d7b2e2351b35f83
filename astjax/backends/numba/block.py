"""The emitter itself: `ModuleEmitter` writes one generated module, `Block` emits a sequence of
equations (a Func body, inlined) following the fusion plan in emit.py's docstring."""
import re

import numpy as np

from astjax.core.avals import AVal
from astjax.core.dims import DimExpr, choices_kept, known_equal, pinned, single_symbol, spelling
from astjax.core.ir import Func, Lit, Var
from astjax.core.printer import Namer, RESERVED
from astjax.core.table import get

from .emit import (EMIT, FOLD, INLINE, LOWER, MODULE_NAMES, VIEW, _comment, cast, dtype_text,
                   scalar_expression, scalar_literal, tuple_text)
from .scalars import COSTLY as E_COSTLY
from .blas_runtime import THREADED
from .nest import REDUCERS, Nest, alias_map, unrolled_reduction
from .outline import outline
from .values import Array, Unrolled, Value, View, all_indices, is_small, is_static, text


class ModuleEmitter:
    """Collects the `@njit` function of one top-level Func (its nested Funcs are inlined)."""

    def __init__(self, top: Func, target: str = "cpu"):
        self.target = target  # "cuda": loop nests become kernels (no prange, per-thread buffers)
        self.blocks: list = []
        self.consts: dict = {}
        self.names = Namer(MODULE_NAMES)
        self.top_name = self.names.fresh(top.name)
        self.sizes: dict = {}  # symbol -> the local holding that size (symbolic core form)
        self._blas_threads = None  # the module global saying whether BLAS may use its threads

    def function(self, func: Func) -> str:
        fn = self.state = FunctionState(self)
        block = Block(fn)
        params = [block.param(v) for v in func.params]
        sizes = self.size_lines(func, params, fn)
        self.aligned_params(block, func)
        with spelling(self.sizes):
            outs = block.inline(func, None)
            results = [block.result(o) for o in outs]
        block.lines.append(f"return {', '.join(results)}" if results else "return ()")
        body = "\n".join(block.prologue + block.lines)
        block.prologue[:0] = [line for line in sizes  # only the sizes the code reads
                              if re.search(rf"\b{line.split(' = ')[0]}\b", body)]
        lines, loops = block.prologue + block.lines, []
        outlined = outline(lines, params, self.names.fresh) if fn.parallel else None
        if outlined is not None:  # (its parallel loops run through rt.parallel: no parfors)
            lines, loops = outlined
        flags = ", parallel=True" if fn.parallel and outlined is None else ""
        self.blocks.append(self._blas_threads_line(fn)
                           + [f"@numba.njit(cache=True, error_model='numpy'{flags})",
                              f"def {self.top_name}({', '.join(params)}):"]
                           + ["    " + line for line in lines])
        self.blocks += loops
        return self.top_name

    def blas_threads(self) -> str:
        """The name of the module's flag that lets its products run on BLAS's own threads
        (`rt.dot`'s last argument): set once the function is written, as that depends on
        whether it runs parallel loops (see blas_runtime.THREADED)."""
        if self.target != "cpu":
            return "False"  # (a GPU's products are kernels of its own)
        if self._blas_threads is None:
            self._blas_threads = self.names.fresh("blas_threads")
        return self._blas_threads

    def _blas_threads_line(self, fn) -> list:
        if self._blas_threads is None:
            return []
        own = THREADED and not fn.parallel
        why = "no parallel loops of its own" if own else "parallel loops, on Numba's threads"
        return [f"{self._blas_threads} = np.bool_({own})  # large products: {why}", ""]

    def aligned_params(self, block, func: Func) -> None:
        """Each array parameter a loop reads at every step (see `_read_by_loops`) is read
        through `rt.aligned` (a copy at a cache line's address where it is not at one), under
        a new name: Numba's parallel loops mishandle a parameter bound again."""
        if self.target != "cpu":
            return
        looped = _read_by_loops(func)
        for var in func.params:
            if var.id in looped and not is_small(var.aval):
                given = block.env[var.id].name
                name = block.fresh(f"{given}_aligned")
                block.prologue.append(f"{name} = rt.aligned({given})")
                block.env[var.id] = Array(var.aval, name)

    def size_lines(self, func: Func, params: list, fn) -> list:
        """`x_dim0 = x.shape[0]` for each symbolic size of the parameters: generated code reads
        sizes from its arguments, so one compiled kernel serves every length. A small size
        seen only as the last axis of matrices is pinned (`pos_dim1 = 3`, see PINNED_AXIS)."""
        lines, pinnable = [], _last_axis_sizes(func)
        for var, name in zip(func.params, params):
            for axis, d in enumerate(var.aval.shape):
                sym = single_symbol(d)
                if sym is not None and sym not in self.sizes:
                    self.sizes[sym] = fn.namer.fresh(f"{name}_dim{axis}")
                    value = _pin(d) if sym in pinnable else None
                    lines.append(f"{self.sizes[sym]} = "
                                 f"{value if value is not None else f'{name}.shape[{axis}]'}")
        return lines

    def const(self, value: np.ndarray) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = value
        return name

    def text(self) -> str:
        return "\n\n\n".join("\n".join(b) for b in self.blocks) + "\n"


def _read_by_loops(func: Func) -> set:
    """The ids of the array parameters a loop of `func` reads at each step, as it is or
    through views of it (a reshape, a transpose): a scan's constants and the carries a loop
    passes on unchanged. Each is aligned on entry (`rt.aligned`: a copy where it is not)."""
    views = {v.id: {v.id} for v in func.params if v.aval.shape}  # var -> the params it views
    read: set = set()
    for eqn in func.eqns:
        if eqn.prim in ("scan", "while_loop"):
            body = eqn.params["body"]
            skip = eqn.params.get("num_consts", 0)
            carries = eqn.params.get("num_carry", len(body.outs))
            steady = list(eqn.ins[:skip]) + [
                a for a, p, o in zip(eqn.ins[skip:], body.params[skip:], body.outs[:carries])
                if o is p]
            read.update(*(views.get(a.id, ()) for a in steady if isinstance(a, Var)))
        elif get(eqn.prim).kind == "shape" and eqn.prim != "broadcast_in_dim":
            seen = set().union(*(views.get(a.id, ()) for a in eqn.ins if isinstance(a, Var)))
            for out in eqn.outs:
                views[out.id] = seen
    return read


# A parameter's size seen only as the last axis of matrices (a point's coordinates, a pixel's
# channels), at most this large, is written as its value: LLVM unrolls the loops over it and
# vectorises the loop around them (the gradient of an n-body energy, 256 bodies in 3-D: 1.10
# -> 0.54 ms). The kernel then relies on that size (a fact, checked at each call); a batch
# axis, which varies from call to call, comes first and is never pinned.
PINNED_AXIS = 4


def _last_axis_sizes(func: Func) -> set:
    """The symbols that are the last axis of a parameter of two or more axes, and no other."""
    last, other = set(), set()
    for var in func.params:
        shape = var.aval.shape
        for axis, d in enumerate(shape):
            sym = single_symbol(d)
            if sym is not None:
                (last if axis == len(shape) - 1 and len(shape) > 1 else other).add(sym)
    return last - other


def _pin(d):
    """d's value when it is small and pinning it is recorded as a fact the kernel relies on
    (under jit, not ahead of time, where one kernel serves every size), else None."""
    value = d.witness
    if not 2 <= value <= PINNED_AXIS or not choices_kept() or not d == value:
        return None
    return pinned(d)


class FunctionState:
    """What the blocks of one generated function share: names, flags, comment position."""

    def __init__(self, module: ModuleEmitter):
        self.module = module
        self.namer = Namer(module.names.used - RESERVED)
        self.parallel = False
        self.serial = False  # inside a parallel loop already: nests run serially
        self.last_line = None
        self.claimed: set = set()  # vars whose own name holds them already
        self.dtypes: dict = {}  # local name -> dtype, for join-point locals and own names


class Block:
    """Emits a sequence of equations (a Func body, inlined) as lines of one function.

    `env` maps a Var's id to its Value; members of open nests are not in `env` until their
    nest is emitted.  A child block (a branch, a loop body) sees what its parent computed
    before it through `parent` (materialised copies made there stay valid inside)."""

    def __init__(self, fn: FunctionState, parent: "Block" = None):
        self.fn, self.parent = fn, parent
        self.module = fn.module
        self.lines: list = []
        self.prologue: list = []
        self.env: dict = {}
        self.nests: list = []
        self.users: dict = {}
        self.made: dict = {}  # var id -> the equation computing it (in the Func inlined here)
        self.results: set = set()
        self.materialised: dict = {}  # id(Value) -> array name
        self.loop = None  # a loop body's Hoist: where its arrays are allocated, once

    # ------------------------------------------------------------ names and small helpers
    @property
    def parallel(self) -> bool:
        return self.fn.parallel

    @parallel.setter
    def parallel(self, value: bool) -> None:
        self.fn.parallel = value

    def fresh(self, base: str) -> str:
        return self.fn.namer.fresh(_local_base(base))

    def base_name(self, var, prim: str) -> str:
        """The value's name in this function (as the NumPy backend prints it): the base of
        the locals and arrays that hold it."""
        names = self.fn.namer.names
        if var.id not in names:
            names[var.id] = self.fresh(var.hint or prim)
        return names[var.id]

    def own_name(self, var, prim: str) -> str:
        """The local that holds the value itself: its name the first time, else a variant."""
        name = self.base_name(var, prim)
        if var.id in self.fn.claimed:
            return self.fresh(name)
        self.fn.claimed.add(var.id)
        return name

    def comment(self, eqn) -> str:
        text, self.fn.last_line = _comment(eqn, self.fn.last_line)
        return text

    def child(self) -> "Block":
        return Block(self.fn, self)

    def param(self, var: Var) -> str:
        name = self.fresh(var.hint or "x")
        if not var.aval.shape:
            self.env[var.id] = Unrolled(var.aval, [name])
        else:
            self.env[var.id] = Array(var.aval, name)
        return name

    # ------------------------------------------------------------ values
    def value(self, atom) -> Value:
        """The Value of an operand (closing the nest computing it, if one is open)."""
        if isinstance(atom, Lit):
            if isinstance(atom.value, DimExpr):
                return Unrolled(atom.aval, [scalar_literal(atom.value, atom.aval.dtype)])
            value = np.asarray(atom.value)
            if value.ndim == 0:
                return Unrolled(atom.aval, [scalar_literal(value.item(), atom.aval.dtype)])
            return Array(AVal(value.shape, value.dtype), self.const_copy(value))
        if atom.id not in self.env:
            for nest in list(self.nests):
                if nest.member(atom) is not None or atom.id in nest.finals:
                    self.flush(nest)
        return self.env[atom.id]

    def bind(self, var: Var, value: Value) -> None:
        self.env[var.id] = value

    def const_copy(self, value) -> str:
        """A constant array as a local, mutable (Numba freezes globals read-only) copy, made
        in the function's prologue so every block may read it."""
        top = self
        while top.parent is not None:
            top = top.parent
        key = ("const", id(value))
        if key not in top.materialised:
            local = self.fresh("const")
            top.prologue.append(f"{local} = {self.module.const(value)}.copy()")
            top.materialised[key] = local
        return top.materialised[key]

    def read(self, value: Value, index) -> str:
        """The text of one element of a value (index: one int or text per axis)."""
        if isinstance(value, Unrolled):
            if not value.shape:
                return value.elems[0]
            if is_static(index):
                return value.read(index)
            return f"{self.materialise(value)}[{', '.join(text(i) for i in index)}]"
        if isinstance(value, Array):
            return value.read(index)
        return value.read(index, self.read)

    def scalar(self, value: Value) -> str:
        return self.read(value, [0] * len(value.shape))

    def _cached(self, value):
        block = self
        while block is not None:
            if id(value) in block.materialised:
                return block.materialised[id(value)]
            block = block.parent
        return None

    def materialise(self, value: Value) -> str:
        """An array (C-contiguous) or, for 0-d values, a scalar text holding the value."""
        if isinstance(value, Array):
            return value.name
        if not value.shape:
            return self.scalar(value)
        if isinstance(value, View) and value.array_text:
            return value.array_text
        cached = self._cached(value)
        if cached is not None:
            return cached
        name = self.fresh("array")
        shape = tuple_text([text(d) for d in value.shape])
        if isinstance(value, View) and value.fill is not None:
            self.lines.append(f"{name} = np.full({shape}, {value.fill}, "
                              f"{dtype_text(value.aval.dtype)})")
        elif isinstance(value, Unrolled):
            self.lines.append(f"{name} = np.empty({shape}, {dtype_text(value.aval.dtype)})")
            for index, elem in zip(all_indices(value.shape), value.elems):
                self.lines.append(f"{name}[{', '.join(map(str, index))}] = {elem}")
        elif all(d >= 0 for d in value.shape):
            name = self._copy_nest(value)
        else:
            self.lines.append(f"{name} = np.empty({shape}, {dtype_text(value.aval.dtype)})")
            self.lines += self.copy_loop(name, value)
        self.materialised[id(value)] = name
        return name

    def _copy_nest(self, value: Value) -> str:
        """A view written to a fresh array by a loop nest (parallel when large)."""
        var = Var(value.aval, "array")
        self.env[var.id] = value
        nest = Nest(self, list(value.shape))
        nest.join_load(var)
        return nest.emit({var.id})[var.id].name

    def copy_loop(self, target: str, value: Value, first_row: str = None) -> list:
        """Lines writing every element of value into target by loops, from row first_row of
        target when given (target[first_row + i, ...] = value[i, ...])."""
        loops = [self.fresh(f"j{a}") for a in range(len(value.shape))]
        lines = [("    " * a) + f"for {v} in range({text(d)}):"
                 for a, (v, d) in enumerate(zip(loops, value.shape))]
        element = self.read(value, loops)
        index = list(loops)
        if first_row is not None:
            index[0] = f"{first_row} + {loops[0]}"
        lines.append("    " * len(loops) + f"{target}[{', '.join(index)}] = {element}")
        return lines

    def unroll(self, value: Value) -> Value:
        """A small value as scalar locals (elements read once, here)."""
        if isinstance(value, Unrolled):
            return value
        elems = []
        for index in all_indices(value.shape):
            element = self.read(value, index)
            if not _is_simple(element):
                local = self.fresh("e")
                self.lines.append(f"{local} = {element}")
                element = local
            elems.append(element)
        return Unrolled(value.aval, elems)

    # ------------------------------------------------------------ allocation
    def allocate(self, var, name: str, allocation: str) -> None:
        """Bind `name` to a new array.  In a loop body it is allocated once, before the
        loop: an array that becomes a carry alternates between two (the carry of the last
        iteration is read while the next is written), any other is reused as it is."""
        hoist = self.loop
        if hoist is None or any(not isinstance(d, (int, DimExpr)) or d < 0 for d in var.aval.shape):
            self.lines.append(f"{name} = {allocation}")
            return
        if var.id in hoist.carried:
            first, second = self.fresh(name + "_a"), self.fresh(name + "_b")
            hoist.lines += [f"{first} = {allocation}", f"{second} = {allocation}"]
            self.lines.append(f"{name} = {first} if {hoist.parity} else {second}")
            return
        hoist.lines.append(f"{name} = {allocation}")
        hoist.reused.add(name)

    # ------------------------------------------------------------ join points
    def slot(self, var, base: str = "") -> Value:
        """Locals that hold a value where control flow joins (a loop carry, a branch's
        result): one scalar per element of a small value, else one C-contiguous array."""
        base = base or var.hint or "carry"
        if is_small(var.aval):
            names = [self.fresh(base)] if not var.aval.shape else \
                [self.fresh(f"{base}_{k}") for k in range(var.aval.size)]
            self.fn.dtypes.update({name: var.aval.dtype for name in names})
            return Unrolled(var.aval, names)
        name = self.fresh(base)
        self.fn.dtypes[name] = None  # an array
        return Array(var.aval, name)

    def assign(self, slots: list, values: list) -> None:
        """Set every slot from its value at once (a tuple assignment: the right-hand sides are
        all read before any slot changes)."""
        targets, sources = [], []
        for slot, value in zip(slots, values):
            if isinstance(slot, Unrolled):
                for index, elem in zip(all_indices(slot.shape), slot.elems):
                    src = self.read(value, index) if slot.shape else self.scalar(value)
                    if src != elem:
                        targets.append(elem)
                        sources.append(cast(src, value.aval.dtype, slot.aval.dtype))
            else:
                src = self.contiguous(value)
                if np.dtype(value.aval.dtype) != np.dtype(slot.aval.dtype):  # one type per local
                    src = f"{src}.astype({dtype_text(slot.aval.dtype)})"
                elif self.loop is not None and getattr(value, "root", None) in self.loop.reused:
                    src = f"{src}.copy()"  # reused by the next iteration: the carry keeps a copy
                if src != slot.name:
                    targets.append(slot.name)
                    sources.append(src)
        if len(targets) == 1:
            self.lines.append(f"{targets[0]} = {sources[0]}")
        elif targets:
            self.lines.append(f"{', '.join(targets)} = {', '.join(sources)}")

    def contiguous(self, value: Value) -> str:
        """An array of the value's dtype, typed C-contiguous (for join points)."""
        return self.materialise(value)

    def result(self, value: Value) -> str:
        """A function result: a scalar of its dtype or a C-contiguous array."""
        return self.materialise(value)

    # ------------------------------------------------------------ equations
    def inline(self, func: Func, args) -> list:
        """Emit `func`'s equations here, its parameters bound to `args` (Values; None when
        bound already); returns the Values of its results."""
        if args is not None:
            for var, value in zip(func.params, args):
                self.env[var.id] = value
        self.users = _users(func)
        self.made = {v.id: e for e in func.eqns for v in e.outs}
        self.results = {o.id for o in func.outs if isinstance(o, Var)}
        for eqn in func.eqns:  # names in program order, as the NumPy backend prints them
            for var in eqn.outs:
                self.base_name(var, eqn.prim)
        for eqn in func.eqns:
            self.equation(eqn)
        outs = [self.value(o) for o in func.outs]
        self.flush_all()
        return outs

    def inline_here(self, func: Func, args) -> list:
        """`func` inlined into this block's own sequence of lines (a call, not a branch)."""
        block = self.child()
        outs = block.inline(func, args)
        self.lines += block.lines
        return outs

    def expand(self, eqns: list) -> None:
        """Emit equations written in place of one (an INLINE rule's): their reads join `users`
        first, so a value one of them reads from a closed nest has been stored."""
        for eqn in eqns:
            for atom in eqn.ins:
                if isinstance(atom, Var):
                    self.users.setdefault(atom.id, set()).add(id(eqn))
        for eqn in eqns:
            self.equation(eqn)

    def equation(self, eqn) -> None:
        prim = get(eqn.prim)
        if prim.kind == "effect":
            self.flush_all()
        if prim.kind == "elementwise" and len(eqn.outs) == 1:
            self.elementwise(eqn)
        elif eqn.prim in REDUCERS and self.reduction(eqn):
            pass
        elif eqn.prim in INLINE and self._nests_read_by(eqn) and self.written_in_place(eqn):
            pass  # equations in its place join the open nest, where a view would close it
        elif eqn.prim in VIEW and self.view(eqn):
            pass
        elif eqn.prim in INLINE and self.written_in_place(eqn):
            pass
        elif eqn.prim in EMIT:
            EMIT[eqn.prim](self, eqn)
        else:
            self.opaque(eqn)

    def written_in_place(self, eqn) -> bool:
        """An INLINE rule: equations written in place of `eqn`, which then reads nothing."""
        if not INLINE[eqn.prim](self, eqn):
            return False
        for atom in eqn.ins:
            if isinstance(atom, Var):
                self.users.get(atom.id, set()).discard(id(eqn))
        return True

    def _nests_read_by(self, eqn) -> list:
        return [n for n in self.nests if n.reads_member(eqn) or n.reads_final(eqn)]

    def elementwise(self, eqn) -> None:
        out = eqn.outs[0]
        nests = self._nests_read_by(eqn)
        if not nests and self._unrolls(eqn):
            self.bind(out, self._unrolled_elementwise(eqn))
            return
        view = self._index_view(eqn) if not nests else None
        if view is not None:
            self.bind(out, view)
            return
        if len(nests) > 1:
            nests = self._merged(nests)
        if len(nests) == 1 and nests[0].join_elementwise(eqn):
            return
        for nest in nests:
            self.flush(nest)
        for nest in self.nests:
            if list(nest.dims) == list(out.aval.shape) and nest.join_elementwise(eqn):
                return
        for nest in self.nests:  # a value per row of a row nest: computed in its row loop
            rows = nest.dims[:nest.k] if nest.k else []
            if rows and len(rows) == len(out.aval.shape) and \
                    all(known_equal(a, b) for a, b in zip(rows, out.aval.shape)) and \
                    nest.join_elementwise(eqn, leading=True):
                return
        if any(d < 0 for d in out.aval.shape):
            self.bind(out, self._dynamic_elementwise(eqn))
            return
        nest = Nest(self, list(out.aval.shape))
        if not nest.join_elementwise(eqn):
            raise AssertionError(f"a fresh nest refused {eqn.prim}")
        self.nests.append(nest)

    def _unrolls(self, eqn) -> bool:
        """Small results are unrolled when an operand already is (a small state, a slice of
        one) or when they are 0-d; small arrays in memory are looped over (less code)."""
        out = eqn.outs[0].aval
        if not is_small(out):
            return False
        if not out.shape:
            return True
        return any(isinstance(a, Var) and a.aval.shape and
                   isinstance(self.env.get(a.id), Unrolled) for a in eqn.ins)

    def _merged(self, nests: list) -> list:
        """The open nests an equation reads, those over one domain made one."""
        kept = [nests[0]]
        for nest in nests[1:]:
            if kept[0].absorb(nest):
                self.nests.remove(nest)
            else:
                kept.append(nest)
        return kept

    def _index_view(self, eqn):
        """The result as a view when it is a cheap function of the position alone (every
        operand an iota, a constant fill, a scalar or a view of those: the one-hot basis of
        jacfwd and hessian, eq(iota, iota) converted), else None.  Such a value is read
        where it is used, at any position, so slicing it or padding it never needs it in
        memory; its expression is written there."""
        out = eqn.outs[0]
        if eqn.prim in E_COSTLY or any(not isinstance(d, DimExpr) and d < 0
                                       for d in out.aval.shape):
            return None
        values = [self.value(a) for a in eqn.ins]
        cost = 1 + sum(_expression_cost(v) for v in values)
        if not all(_position_only(v) for v in values) or cost > INDEX_VIEW_COST:
            return None
        r = len(out.aval.shape)

        def element(index, reader):
            texts = [reader(v, _broadcast_index(index, v.shape, r)) if v.shape
                     else self.scalar(v) for v in values]
            return f"({scalar_expression(eqn, texts, self)})"
        view = View(out.aval, element, values)
        view.cost = cost
        return view

    def _unrolled_elementwise(self, eqn) -> Value:
        out = eqn.outs[0]
        values = [self.value(a) for a in eqn.ins]
        elems = []
        r = len(out.aval.shape)
        for index in all_indices(out.aval.shape):
            texts = [self.read(v, _broadcast_index(index, v.shape, r)) for v in values]
            expr = scalar_expression(eqn, texts, self, vector=False)
            local = (self.own_name(out, eqn.prim) if not out.aval.shape else
                     self.fresh(self.base_name(out, eqn.prim) + "_" + "_".join(map(str, index))))
            self.lines.append(f"{local} = {expr}{self.comment(eqn)}")
            elems.append(local)
        return Unrolled(out.aval, elems)

    def _dynamic_elementwise(self, eqn) -> Value:
        """Run-time lengths (a tape's): one loop over the broadcast shape, read by index."""
        out = eqn.outs[0]
        values = [self.value(a) for a in eqn.ins]
        source = next(v for v in values if isinstance(v, Array) and v.shape == out.aval.shape)
        name = self.own_name(out, eqn.prim)
        dims = [f"{source.name}.shape[{j}]" for j in range(len(out.aval.shape))]
        self.lines.append(f"{name} = np.empty({tuple_text(dims)}, {dtype_text(out.aval.dtype)})")
        loops = [self.fresh(f"j{a}") for a in range(len(dims))]
        for a, (v, d) in enumerate(zip(loops, dims)):
            self.lines.append("    " * a + f"for {v} in range({d}):")
        r = len(dims)
        texts = [self.read(v, _broadcast_index(loops, v.shape, r)) for v in values]
        self.lines.append("    " * r + f"{name}[{', '.join(loops)}] = "
                          f"{scalar_expression(eqn, texts, self)}")
        return Array(out.aval, name)

    def reduction(self, eqn) -> bool:
        atom = eqn.ins[0]
        axes = tuple(eqn.params["axes"]) if "axes" in eqn.params else (eqn.params["axis"],)
        nests = self._nests_read_by(eqn)
        if len(nests) == 1 and nests[0].join_reduction(eqn, axes):
            return True
        for nest in nests:
            self.flush(nest)
        value = self.value(atom)
        if is_small(atom.aval) and unrolled_reduction(self, eqn, value, axes):
            return True
        if any(d <= 0 for d in atom.aval.shape):
            return False
        nest = Nest(self, list(atom.aval.shape))
        nest.join_load(atom)
        if not nest.join_reduction(eqn, axes):
            return False
        self.nests.append(nest)
        return True

    def view(self, eqn) -> bool:
        if any(isinstance(d, (int, np.integer)) and d < 0
               for atom in list(eqn.ins) + list(eqn.outs) for d in atom.aval.shape):
            return False  # a tape's run-time length: views index static shapes only
        nests = self._nests_read_by(eqn)
        if len(nests) == 1 and nests[0].member(eqn.ins[0]) is not None \
                and not nests[0].reads_final(eqn) \
                and nests[0].join_alias(eqn, alias_map(eqn, nests[0].member(eqn.ins[0]))):
            return True
        values = [self.value(a) for a in eqn.ins]
        result = VIEW[eqn.prim](self, eqn, values)
        if result is None:
            return False
        out = eqn.outs[0]
        if is_small(out.aval) and not isinstance(result, Unrolled) and out.aval.shape \
                and _static_readable(result):
            result = self.unroll(result)
        self.bind(out, result)
        return True

    def opaque(self, eqn) -> None:
        rule = LOWER[eqn.prim]
        if eqn.prim in FOLD:
            eqn = FOLD[eqn.prim](self, eqn)
        ins = [self.materialise(self.value(a)) for a in eqn.ins]
        outs = [self.own_name(v, eqn.prim) for v in eqn.outs]
        lines = rule(self, eqn, ins, outs)
        comment = self.comment(eqn)
        if lines and comment:
            lines = [lines[0] + comment] + lines[1:]
        self.lines += lines
        for var, name in zip(eqn.outs, outs):
            self.bind(var, Unrolled(var.aval, [name]) if not var.aval.shape
                      else Array(var.aval, name))

    # ------------------------------------------------------------ nests
    def flush(self, nest) -> None:
        if nest not in self.nests:
            return
        self.nests.remove(nest)
        stored, aliases = set(), []
        for member in nest.order:
            if member.kind == "load":
                continue
            users = self.users.get(member.var.id, set())
            outside = [u for u in users if u not in nest.eqns]
            if outside or member.var.id in self.results:
                if member.kind == "alias" and not _reordering(member):  # stored as a view
                    # of its stored source (a reshape of an array is free; a transpose of
                    # one is copied when read, so it is stored in its own order instead)
                    aliases.append(member)
                    source = member.source
                    while source.kind == "alias":
                        source = source.source
                    if source.kind != "load":
                        stored.add(source.var.id)
                    if self.loop is not None and member.var.id in self.loop.carried:
                        self.loop.carried.add(source.var.id)
                else:
                    stored.add(member.var.id)
        self.env.update(nest.emit(stored))
        for member in aliases:
            self._alias_view(member)

    def _alias_view(self, member) -> Value:
        """A stored alias: a view of its source's stored value (built along the chain)."""
        if member.var.id not in self.env:
            source = member.source
            operand = self._alias_view(source) if source.kind == "alias" else \
                self.env[source.var.id]
            self.env[member.var.id] = VIEW[member.eqn.prim](self, member.eqn, [operand])
        return self.env[member.var.id]

    def flush_all(self) -> None:
        while self.nests:
            self.flush(self.nests[0])


def _local_base(base: str) -> str:
    """Numba names its own temporaries with leading underscores: ours never start with one."""
    stripped = base.lstrip("_")
    if stripped == base and not base[:1].isdigit():
        return base
    return "v" + ("_" if stripped[:1].isdigit() or not stripped else "") + stripped


# Index views are written out at every read: a chain of more operations than this (x + x,
# repeated, doubles the text each time) is computed once in a nest instead.
INDEX_VIEW_COST = 12


def _reordering(member) -> bool:
    """Whether an alias member reorders its source's elements (a transpose on its chain) and
    has a loop for each of its axes, so it can be stored in its own order."""
    if any(a is None for a, d in zip(member.out_map, member.var.aval.shape)
           if not (isinstance(d, int) and d == 1)):
        return False  # a broadcast: stored, its source is read through a view
    while member.kind == "alias":
        if member.eqn.prim == "transpose":
            return True
        member = member.source
    return False


def _position_only(value) -> bool:
    """Whether reading the value needs no array in memory: scalars and small values in
    locals, iotas, fills, and views of those."""
    if isinstance(value, Unrolled):
        return True
    if isinstance(value, View):
        return value.fill is not None or all(_position_only(b) for b in value.bases)
    return False


def _expression_cost(value) -> int:
    """How many operations reading one element of the value writes out."""
    if isinstance(value, View):
        return getattr(value, "cost", 0) or sum(_expression_cost(b) for b in value.bases)
    return 0


def _is_simple(element: str) -> bool:
    """A local's name or a literal: nothing to compute, so nothing to bind."""
    if element.isidentifier():
        return True
    try:
        float(element.split("(", 1)[-1].rstrip(")"))
        return element.count("(") <= 1
    except ValueError:
        return False


def _static_readable(value) -> bool:
    """Whether every element of a view can be read at a static index without a run-time
    array (views on unrolled values)."""
    return all(isinstance(b, Unrolled) or (isinstance(b, View) and _static_readable(b))
               for b in getattr(value, "bases", []))


def _broadcast_index(index, shape, r) -> list:
    """The index into an operand of `shape` broadcast (right-aligned) to rank r."""
    off = r - len(shape)
    return [0 if d == 1 else index[off + t] for t, d in enumerate(shape)]


def _users(func: Func) -> dict:
    """var id -> ids of the equations reading it ("return" for the results)."""
    users: dict = {}
    for eqn in func.eqns:
        for atom in eqn.ins:
            if isinstance(atom, Var):
                users.setdefault(atom.id, set()).add(id(eqn))
    for atom in func.outs:
        if isinstance(atom, Var):
            users.setdefault(atom.id, set()).add("return")
    return users


class Hoist:
    """A loop body's allocations, emitted before the loop.  `carried`: ids of the body's
    results that become carries; `parity`: a text that alternates between iterations;
    `reused`: arrays allocated once and overwritten by every iteration."""

    def __init__(self, carried, parity: str):
        self.carried, self.parity = set(carried), parity
        self.lines: list = []
        self.reused: set = set()
