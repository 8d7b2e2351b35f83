"""Core form -> the text of a Numba module: one `@njit` function per `Func`, fused loops inside.

Contract of the generated code
------------------------------
* A value of shape () is a Numba *scalar* of exactly its aval's dtype; every other value is a
  C-contiguous array of its aval's dtype and shape (the caller passes contiguous arrays, and
  every lowering that could make a strided view copies it with `np.ascontiguousarray`).
  Arrays are never written after they are produced, so aliasing between values is harmless.
* Maximal runs of elementwise equations sharing one output shape S become one loop over the
  flattened arrays (`numba.prange` when S is large, `range` otherwise).  Inside the loop each
  value is a scalar named `<name>_i`; only values used after the run are stored to memory.
* Dtypes are the avals': literals are typed (`np.float32(2.0)`), operands are cast to the
  dtype the operation computes in, results narrower than Numba's arithmetic are cast back.

Lowerings live in two tables, filled by one module per primitive kind:
    SCALAR, for elementwise primitives: `rule(op: ScalarOp) -> str`, a scalar expression;
    LOWER, for the others: `rule(fe: FuncEmitter, eqn, ins: [str], outs: [str]) -> [str]`,
    source lines (relative indentation of four spaces per level) binding every name in `outs`.
"""
import math
import os

import numpy as np

from astjax.core.ir import Func, Lit, Var, sub_funcs
from astjax.core.printer import Namer, RESERVED
from astjax.core.primitives import RuleTable
from astjax.core.table import get

SCALAR = RuleTable("numba_scalar", "rule(op: ScalarOp) -> str",
                   covers=lambda prim: prim.kind == "elementwise")
LOWER = RuleTable("numba", "rule(fe: FuncEmitter, eqn, ins: [str], outs: [str]) -> [str]",
                  covers=lambda prim: prim.kind != "elementwise")


def has_lowering(name: str) -> bool:
    return name in SCALAR or name in LOWER


# Names generated code uses as modules or helpers: never given to a value.
MODULE_NAMES = {"numba", "vecmath", "rt", "math", "prange", "njit"}
PRANGE_MIN_SIZE = 65536  # below this the thread pool's start-up costs more than it saves
NARROW_OK = {"float32", "float64", "int64", "bool"}  # dtypes Numba's arithmetic keeps


def dtype_text(dtype) -> str:
    """`np.float32`: the constructor of a dtype, as generated code spells it."""
    name = np.dtype(dtype).name
    return "np.bool_" if name == "bool" else f"np.{name}"


def scalar_literal(value, dtype) -> str:
    """A literal of exactly `dtype` (a bare Python int stays int64 in Numba: keep it bare)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return repr(bool(value))
    if dtype.kind in "iu":
        text = repr(int(value))
        return text if dtype.name == "int64" else f"{dtype_text(dtype)}({text})"
    if dtype.kind == "f":
        value = float(value)
        if math.isnan(value):
            text = "np.nan"
        elif math.isinf(value):
            text = "np.inf" if value > 0 else "-np.inf"
        else:
            text = repr(value)
        return f"{dtype_text(dtype)}({text})"
    raise NotImplementedError(f"{dtype.name} literals")


def cast(text: str, from_dtype, to_dtype) -> str:
    """`text` (a scalar of from_dtype) converted as NumPy's astype would."""
    from_dtype, to_dtype = np.dtype(from_dtype), np.dtype(to_dtype)
    if from_dtype == to_dtype:
        return text
    if to_dtype.kind == "b":
        return f"({text} != 0)"
    return f"{dtype_text(to_dtype)}({text})"


class ScalarOp:
    """What an elementwise rule sees: operand texts (scalars), their avals, the result aval."""

    def __init__(self, eqn, texts: list, fe: "FuncEmitter"):
        self.eqn, self.texts, self.fe = eqn, texts, fe
        self.in_avals = [a.aval for a in eqn.ins]
        self.out = eqn.outs[0].aval
        self.params = eqn.params

    @property
    def dtype(self) -> np.dtype:
        return self.out.dtype

    def is_float(self, k: int = None) -> bool:
        aval = self.out if k is None else self.in_avals[k]
        return aval.dtype.kind == "f"

    def arg(self, k: int, dtype=None) -> str:
        """Operand k as a scalar of `dtype` (default: the result's dtype)."""
        dtype = np.dtype(dtype or self.dtype)
        atom = self.eqn.ins[k]
        if isinstance(atom, Lit) and np.ndim(atom.value) == 0:
            return scalar_literal(np.asarray(atom.value).item(), dtype)
        return cast(self.texts[k], atom.aval.dtype, dtype)

    def common_dtype(self) -> np.dtype:
        """The dtype NumPy computes a comparison in (NEP 50: weak operands adapt)."""
        from astjax.core.avals import result_dtype
        return result_dtype(*self.in_avals)[0]

    def fn(self, name: str, *args) -> str:
        return f"{name}({', '.join(args)})"


def scalar_expression(eqn, texts: list, fe) -> str:
    rule = SCALAR[eqn.prim]
    op = ScalarOp(eqn, texts, fe)
    expr = rule(op)
    if op.dtype.name not in NARROW_OK:  # Numba widens small ints to int64: narrow back
        expr = f"{dtype_text(op.dtype)}({expr})"
    return expr


def _comment(eqn, last_line) -> tuple:
    """`  # file.py:3  y = ...` when the equation computes a new source line (as printer.py)."""
    loc = eqn.loc
    if loc is None or (loc.file, loc.line, eqn.note) == last_line:
        return "", last_line
    note = f"{eqn.note} " if eqn.note else ""
    return (f"  # {note}{os.path.basename(loc.file)}:{loc.line}  {loc.text().strip()}",
            (loc.file, loc.line, eqn.note))


class ModuleEmitter:
    """Collects the `@njit` functions of one module: the top Func and every nested one (branches,
    loop bodies) as module-level functions, named up front so no local name shadows them."""

    def __init__(self, top: Func):
        self.blocks: list = []
        self.consts: dict = {}
        self.names = Namer(MODULE_NAMES)
        self.func_names: dict = {}
        self.emitted: set = set()
        self._plan(top)

    def _plan(self, func: Func) -> None:
        self.func_names[id(func)] = self.names.fresh(func.name)
        for eqn in func.eqns:
            for sub in sub_funcs(eqn):
                if id(sub) not in self.func_names:
                    self._plan(sub)

    def function(self, func: Func) -> str:
        """Emit `func` as a module-level function (once); returns its name."""
        name = self.func_names[id(func)]
        if id(func) in self.emitted:
            return name
        self.emitted.add(id(func))
        fe = FuncEmitter(self, func)
        body = fe.body()
        flags = ", parallel=True" if fe.parallel else ""
        params = ", ".join(fe.namer[v] for v in func.params)
        self.blocks.append([f"@numba.njit(cache=True, error_model='numpy'{flags})",
                            f"def {name}({params}):"] + ["    " + line for line in body])
        return name

    def const(self, value: np.ndarray) -> str:
        name = f"_c{len(self.consts)}"
        self.consts[name] = value
        return name

    def text(self) -> str:
        return "\n\n\n".join("\n".join(b) for b in self.blocks) + "\n"


class FuncEmitter:
    """Emits one Func's body: names, fused elementwise runs, and the other lowerings."""

    def __init__(self, module: ModuleEmitter, func: Func):
        self.module, self.func = module, func
        self.namer = Namer(module.names.used - RESERVED)
        for v in func.params:
            self.namer.bind(v, "x")
        self.lines: list = []
        self.parallel = False
        self.loop_index = None
        self.users = _users(func)
        self.last_line = None
        self.copied_consts: dict = {}

    # ------------------------------------------------------------ naming
    def name(self, atom) -> str:
        """An operand as text: a value's name, a typed scalar literal or a constant array."""
        if isinstance(atom, Var):
            return self.namer[atom]
        value = np.asarray(atom.value)
        if value.ndim == 0:
            return scalar_literal(value.item(), atom.aval.dtype)
        return self.const_copy(value)

    def const_copy(self, value) -> str:
        """A constant array as a local, mutable (Numba freezes globals read-only) copy."""
        key = id(value)
        if key not in self.copied_consts:
            local = self.fresh("const")
            self.lines.append(f"{local} = {self.module.const(value)}.copy()")
            self.copied_consts[key] = local
        return self.copied_consts[key]

    def fresh(self, base: str) -> str:
        return self.namer.fresh(base)

    def bind(self, var: Var, base: str) -> str:
        return self.namer.bind(var, base)

    def sub(self, func: Func) -> str:
        """A nested Func compiled as its own module-level function."""
        return self.module.function(func)

    # ------------------------------------------------------------ body
    def body(self) -> list:
        runs = RunBuilder(self)
        for index, eqn in enumerate(self.func.eqns):
            runs.add(index, eqn)
        runs.flush()
        outs = [self.name(o) for o in self.func.outs]
        if not outs:
            self.lines.append("return ()")
        else:
            self.lines.append(f"return {', '.join(outs)}")
        return self.lines

    def comment(self, eqn) -> str:
        text, self.last_line = _comment(eqn, self.last_line)
        return text

    def emit_other(self, eqn) -> None:
        """A non-elementwise equation through its table lowering."""
        rule = LOWER[eqn.prim]
        ins = [self.name(a) for a in eqn.ins]
        outs = [self.bind(v, eqn.prim) for v in eqn.outs]
        lines = rule(self, eqn, ins, outs)
        comment = self.comment(eqn)
        if lines and comment:
            lines = [lines[0] + comment] + lines[1:]
        self.lines += lines

    def emit_scalar(self, eqn) -> None:
        """An elementwise equation on 0-d values: one scalar statement."""
        expr = scalar_expression(eqn, [self.name(a) for a in eqn.ins], self)
        out = self.bind(eqn.outs[0], eqn.prim)
        self.lines.append(f"{out} = {expr}{self.comment(eqn)}")


def _users(func: Func) -> dict:
    """var id -> indices of the equations reading it (len(eqns) stands for the return)."""
    users: dict = {}
    for index, eqn in enumerate(func.eqns):
        for atom in eqn.ins:
            if isinstance(atom, Var):
                users.setdefault(atom.id, set()).add(index)
    for atom in func.outs:
        if isinstance(atom, Var):
            users.setdefault(atom.id, set()).add(len(func.eqns))
    return users


def is_elementwise(eqn) -> bool:
    return get(eqn.prim).kind == "elementwise" and len(eqn.outs) == 1


class RunBuilder:
    """Groups elementwise equations of one output shape into a run, emitted as one loop.

    An equation that is not part of the run but does not read any of its values is emitted at
    once, ahead of the run's loop (it cannot depend on the loop, and the run cannot depend on
    it), so independent work between elementwise lines does not split a fused loop.  Effects
    (debug_print) keep their place: they end the run first.
    """

    def __init__(self, fe: FuncEmitter):
        self.fe = fe
        self.shape = None
        self.eqns: list = []  # (index, eqn)
        self.produced: set = set()

    def add(self, index: int, eqn) -> None:
        if is_elementwise(eqn) and eqn.outs[0].aval.shape == ():
            self.fe.emit_scalar(eqn)  # 0-d: cannot read an S-shaped run value
            return
        if is_elementwise(eqn):
            shape = eqn.outs[0].aval.shape
            if self.shape is not None and shape != self.shape:
                self.flush()
            self.shape = shape
            self.eqns.append((index, eqn))
            self.produced.add(eqn.outs[0].id)
            return
        reads_run = any(isinstance(a, Var) and a.id in self.produced for a in eqn.ins)
        if reads_run or get(eqn.prim).kind == "effect":
            self.flush()
        self.fe.emit_other(eqn)

    def flush(self) -> None:
        if self.eqns:
            emit_loop(self.fe, self.shape, self.eqns)
        self.shape, self.eqns, self.produced = None, [], set()


def emit_loop(fe: FuncEmitter, shape: tuple, run: list) -> None:
    """One loop computing a run of elementwise equations over the flattened shape."""
    indices = {index for index, _ in run}
    produced = {eqn.outs[0].id: eqn.outs[0] for _, eqn in run}
    live = [var for var in produced.values()
            if any(u not in indices for u in fe.users.get(var.id, ()))]
    pre, element = [], {}  # element: var id -> text of its i-th element inside the loop
    if fe.loop_index is None:
        fe.loop_index = (fe.fresh("i"), fe.fresh("n"))
    i, n = fe.loop_index
    size_source = None
    for _, eqn in run:
        for atom in eqn.ins:
            if isinstance(atom, Lit) and np.ndim(atom.value) > 0:  # a constant array
                if _key(atom) not in element:
                    element[_key(atom)] = f"{_flat_operand(fe, atom, shape, pre)}[{i}]"
                continue
            if not isinstance(atom, Var) or atom.id in produced or atom.id in element:
                continue
            if atom.aval.shape == ():
                element[atom.id] = fe.name(atom)
                continue
            flat = _flat_operand(fe, atom, shape, pre)
            element[atom.id] = f"{flat}[{i}]"
            if atom.aval.shape == shape and size_source is None:
                size_source = fe.name(atom)
    static = -1 not in shape
    size = int(np.prod(shape, dtype=np.int64)) if static else None
    pre.append(f"{n} = {size if static else size_source + '.size'}")
    shape_text = repr(tuple(shape)) if static else f"{size_source}.shape"
    post = []
    for _, eqn in run:  # names in equation order, as the NumPy backend prints them
        fe.bind(eqn.outs[0], eqn.prim)
    for var in live:
        name = fe.namer[var]
        if len(shape) == 1:
            pre.append(f"{name} = np.empty({n}, {dtype_text(var.aval.dtype)})")
            element_store = name
        else:
            element_store = fe.fresh(name + "_flat")
            pre.append(f"{element_store} = np.empty({n}, {dtype_text(var.aval.dtype)})")
            post.append(f"{name} = {element_store}.reshape({shape_text})")
        element[("store", var.id)] = element_store
    parallel = not static or size >= PRANGE_MIN_SIZE
    fe.parallel |= parallel
    body = []
    for _, eqn in run:
        texts = [element.get(_key(a)) for a in eqn.ins]
        out = eqn.outs[0]
        scalar = fe.fresh(f"{fe.namer[out]}_i")
        body.append(f"{scalar} = {scalar_expression(eqn, texts, fe)}{fe.comment(eqn)}")
        element[out.id] = scalar
        store = element.get(("store", out.id))
        if store is not None:
            body.append(f"{store}[{i}] = {scalar}")
    loop = f"for {i} in {'numba.prange' if parallel else 'range'}({n}):"
    fe.lines += pre + [loop] + ["    " + line for line in body] + post


def _key(atom):
    """An operand's key in emit_loop's table of element texts (None: a scalar literal)."""
    if isinstance(atom, Var):
        return atom.id
    return ("const", id(atom.value)) if np.ndim(atom.value) > 0 else None


def _flat_operand(fe: FuncEmitter, atom, shape: tuple, pre: list) -> str:
    """A 1-D contiguous view (or broadcast copy) of an operand over the run's shape."""
    name = fe.name(atom)
    if atom.aval.shape == shape:
        if len(shape) == 1:
            return name
        flat = fe.fresh(name + "_flat")
        pre.append(f"{flat} = {name}.reshape({name}.size)")
        return flat
    flat = fe.fresh(name + "_b")
    pre.append(f"{flat} = np.ascontiguousarray(np.broadcast_to({name}, {tuple(shape)!r}))"
               f".reshape({int(np.prod(shape, dtype=np.int64))})")
    return flat


# ---------------------------------------------------------------- shapes in generated code
def dims(name: str, aval) -> list:
    """Each dimension as text: the static size, or `x.shape[j]` where it is known only at run
    time (-1 in the aval: a tape's length)."""
    return [str(d) if d >= 0 else f"{name}.shape[{j}]" for j, d in enumerate(aval.shape)]


def product(texts: list) -> str:
    """The product of dimension texts, folded when they are all static ("1" when empty)."""
    if all(t.isdigit() for t in texts):
        return str(int(np.prod([int(t) for t in texts], dtype=np.int64)))
    return " * ".join(texts)


def tuple_text(texts: list) -> str:
    return f"({', '.join(texts)}{',' if len(texts) == 1 else ''})"


def as_dtype(text: str, aval, dtype) -> str:
    """An array or scalar value converted to dtype (unchanged when it already is)."""
    if np.dtype(aval.dtype) == np.dtype(dtype):
        return text
    if aval.shape == ():
        return cast(text, aval.dtype, dtype)
    return f"{text}.astype({dtype_text(dtype)})"
