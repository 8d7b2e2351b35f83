"""Core form to StableHLO text: the emitter, and the table of lowerings it consults.

Each equation becomes StableHLO operations in MLIR's generic form,

    %y = "stablehlo.add"(%x, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc("model.py":4:8)

named after the user's variables where there are any, each carrying the user's `file:line:col`
as its MLIR location (so an XLA error or profile points home). Nested functions (branches, loop
bodies) become regions; values of enclosing scopes are used directly, as StableHLO allows.

Core form follows NumPy: elementwise primitives broadcast their operands and mix dtypes; StableHLO
wants operands of one shape and element type. `Body.coerce` converts and broadcasts operands to
what an operation takes, so the lowerings stay one line where the operation exists.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.ir import Eqn, Func, Lit, Var
from astjax.core.prims.elementwise import part_dtype
from astjax.core.primitives import RuleTable
from astjax.core.printer import Namer
from astjax.errors import TransformError

from .tape import MovedTape, Tape

LOWER = RuleTable("xla", "lower(body, eqn, *operands) -> [Value] (one per eqn.outs); operands are "
                         "Values, the equation's literals already made constants")

_ELEMENT = {"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
            "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
            "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
            "complex64": "complex<f32>", "complex128": "complex<f64>"}


def element_type(dtype) -> str:
    known = _ELEMENT_OF.get(dtype)  # (a dtype's `name` costs microseconds: asked per value)
    if known is not None:
        return known
    dtype = np.dtype(dtype)
    if dtype.name not in _ELEMENT:
        raise TransformError(f"the XLA backend has no element type for {dtype.name}",
                             hint="convert to a float, int, bool or complex dtype first")
    _ELEMENT_OF[dtype] = _ELEMENT[dtype.name]
    return _ELEMENT[dtype.name]


_ELEMENT_OF: dict = {}  # dtype -> its element type, as element_type found it


def tensor_type(shape, dtype) -> str:
    dims = "".join(f"{int(d)}x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


@dataclass(frozen=True)
class Value:
    """An SSA value of the module being written: its name and abstract value."""
    name: str
    shape: tuple
    dtype: np.dtype

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)


def i64_array(values) -> str:
    values = [int(v) for v in values]
    return f"array<i64: {', '.join(map(str, values))}>" if values else "array<i64>"


def dense_literal(value, dtype) -> str:
    """`dense<...>`'s body for a constant: a number for a scalar, raw bytes for an array."""
    array = np.asarray(value).astype(dtype)
    if array.ndim == 0 and array.dtype.kind in "biuf":
        item = array.item()
        if array.dtype.kind == "b":
            return "true" if item else "false"
        if array.dtype.kind in "iu" or math.isfinite(item):
            return _float_text(item) if array.dtype.kind == "f" else str(item)
    return '"0x' + np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes().hex() \
        .upper() + '"'


def _float_text(value: float) -> str:
    """Python's shortest round-trip spelling, with the '.' MLIR's float literals need."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def location(loc) -> str:
    if loc is None:
        return ""
    path = str(loc.file).replace("\\", "\\\\").replace('"', '\\"')
    return f' loc("{path}":{loc.line}:{loc.col + 1})'


class Body:
    """The operations of one function body or region, written in order.

    `env` maps core-form variables to Values; a region's body sees its parents' too."""

    def __init__(self, namer: Namer, indent: str, parent: "Body" = None):
        self.namer, self.indent, self.parent = namer, indent, parent
        self.lines: list = []
        self.scalars: dict = parent.scalars if parent else {}  # constant's name -> its value
        self.tapes = parent.tapes if parent else None          # the module's Tapes
        self.replicas = parent.replicas if parent else None   # (pmap's axis name, replicas)
        self.callbacks: list = parent.callbacks if parent else []  # the module's host calls
        self.env: dict = {}
        self.loc = parent.loc if parent else None

    # ------------------------------------------------------------------ values
    def lookup(self, var: Var) -> Value:
        body = self
        while body is not None:
            if var.id in body.env:
                return body.env[var.id]
            body = body.parent
        raise KeyError(var)

    def atom(self, atom) -> Value:
        if isinstance(atom, Lit):
            aval = atom.aval
            return self.constant(atom.value, aval.dtype)
        return self.lookup(atom)

    def fresh(self, hint: str = "t") -> str:
        return "%" + self.namer.fresh(hint)

    # ------------------------------------------------------------------ operations
    def op(self, name: str, operands, results, attrs: str = "", regions=(), hint: str = "") -> list:
        """Writes one operation; `results` is a list of (shape, dtype); returns their Values."""
        out_types = [tensor_type(s, d) for s, d in results]
        ins = ", ".join(v.name for v in operands)
        signature = f"({', '.join(v.type for v in operands)}) -> " + \
            (out_types[0] if len(out_types) == 1 else f"({', '.join(out_types)})")
        attributes = f" {{{attrs}}}" if attrs else ""
        region_text = ""
        if regions:
            region_text = " (" + ", ".join(regions) + ")"
        if not results:
            self.lines.append(f'{self.indent}"{name}"({ins}){region_text}{attributes} : '
                              f'{signature}{location(self.loc)}')
            return []
        base = self.fresh(hint or name.split(".")[-1])
        target = base if len(results) == 1 else f"{base}:{len(results)}"
        self.lines.append(f'{self.indent}{target} = "{name}"({ins}){region_text}{attributes} : '
                          f'{signature}{location(self.loc)}')
        if len(results) == 1:
            return [Value(base, tuple(results[0][0]), np.dtype(results[0][1]))]
        return [Value(f"{base}#{k}", tuple(s), np.dtype(d)) for k, (s, d) in enumerate(results)]

    def op1(self, name: str, operands, shape, dtype, attrs: str = "", hint: str = "") -> Value:
        return self.op(name, operands, [(shape, dtype)], attrs, hint=hint)[0]

    def host_call(self, fn, operands, results, hint: str = "") -> list:
        """A call of the Python function `fn` (NumPy arrays in, a tuple of them out) in the
        middle of the computation: jaxlib's CPU callback, given `fn` when the module is
        compiled. Side-effecting, so XLA keeps the calls, in program order."""
        index = len(self.callbacks)
        self.callbacks.append(fn)
        attrs = ('api_version = 4 : i32, call_target_name = "xla_ffi_python_cpu_callback", '
                 f"has_side_effect = true, backend_config = {{index = {index} : ui64}}")
        return self.op("stablehlo.custom_call", operands, results, attrs, hint=hint)

    def constant(self, value, dtype, shape=()) -> Value:
        """A constant of `dtype`, broadcast to `shape` (an array value keeps its own shape
        when `shape` is left out)."""
        array = np.asarray(value)
        if array.ndim == 0:  # a splat: written once, converted and broadcast as text
            shape = tuple(int(d) for d in shape)
            result = self.op1("stablehlo.constant", [], shape, dtype,
                              f"value = dense<{dense_literal(array, dtype)}> : "
                              f"{tensor_type(shape, dtype)}", hint="c")
            self.scalars[result.name] = array[()]
            return result
        literal = dense_literal(array, dtype)
        result = self.op1("stablehlo.constant", [], array.shape, dtype,
                          f"value = dense<{literal}> : {tensor_type(array.shape, dtype)}",
                          hint="c")
        wanted = tuple(shape) if shape != () else array.shape
        return self.broadcast(result, wanted) if wanted != array.shape else result

    def convert(self, value: Value, dtype) -> Value:
        dtype = np.dtype(dtype)
        if value.dtype == dtype:
            return value
        if value.name in self.scalars:
            with np.errstate(all="ignore"):
                return self.constant(np.asarray(self.scalars[value.name]).astype(dtype), dtype,
                                     value.shape)
        if dtype == np.bool_:  # nonzero is true (StableHLO's convert to i1 is not NumPy's)
            zero = self.constant(0, value.dtype, value.shape)
            return self.compare(value, zero, "NE")
        if value.dtype.kind == "c" and dtype.kind != "c":  # NumPy keeps the real part
            value = self.op1("stablehlo.real", [value], value.shape, part_dtype(value.dtype))
            if value.dtype == dtype:
                return value
        return self.op1("stablehlo.convert", [value], value.shape, dtype)

    def broadcast(self, value: Value, shape) -> Value:
        """NumPy's broadcasting (axes aligned from the right) of `value` to `shape`."""
        shape = tuple(shape)
        if value.shape == shape:
            return value
        if value.name in self.scalars:
            return self.constant(self.scalars[value.name], value.dtype, shape)
        dims = range(len(shape) - value.ndim, len(shape))
        return self.broadcast_in_dim(value, shape, dims)

    def broadcast_in_dim(self, value: Value, shape, dims) -> Value:
        return self.op1("stablehlo.broadcast_in_dim", [value], shape, value.dtype,
                        f"broadcast_dimensions = {i64_array(dims)}")

    def coerce(self, values, shape, dtype) -> list:
        return [self.broadcast(self.convert(v, dtype), shape) for v in values]

    def compare(self, a: Value, b: Value, direction: str) -> Value:
        kind = {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}
        attrs = (f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
                 f"compare_type = #stablehlo<comparison_type {kind[a.dtype.kind]}>")
        return self.op1("stablehlo.compare", [a, b], a.shape, np.bool_, attrs)

    def binary(self, name: str, a: Value, b: Value) -> Value:
        return self.op1(name, [a, b], a.shape, a.dtype)

    def unary(self, name: str, a: Value) -> Value:
        return self.op1(name, [a], a.shape, a.dtype)

    def select(self, pred: Value, a: Value, b: Value) -> Value:
        return self.op1("stablehlo.select", [pred, a, b], a.shape, a.dtype)

    def transpose(self, value: Value, permutation) -> Value:
        permutation = [int(p) for p in permutation]
        if permutation == list(range(value.ndim)):
            return value
        return self.op1("stablehlo.transpose", [value], [value.shape[p] for p in permutation],
                        value.dtype, f"permutation = {i64_array(permutation)}")

    def reshape(self, value: Value, shape) -> Value:
        shape = tuple(int(d) for d in shape)
        if value.shape == shape:
            return value
        return self.op1("stablehlo.reshape", [value], shape, value.dtype)

    def reduce(self, operands: list, inits: list, dims, combine, hint: str = "") -> list:
        """A `stablehlo.reduce` over `dims`; `combine(body, lefts, rights) -> values` writes
        the region that merges two partial results."""
        region = self.region([(v.dtype, ()) for v in operands] * 2)
        n = len(operands)
        region.ret(combine(region, region.args[:n], region.args[n:]))
        keep = [d for i, d in enumerate(operands[0].shape) if i not in set(dims)]
        results = [(keep, v.dtype) for v in operands]
        return self.op("stablehlo.reduce", list(operands) + list(inits), results,
                       f"dimensions = {i64_array(sorted(dims))}", [region.text()], hint=hint)

    # ------------------------------------------------------------------ regions
    def region(self, args) -> "Body":
        """A child body whose block takes arguments of the given (dtype, shape)s."""
        child = Body(self.namer, self.indent + "    ", self)
        child.args = [Value(child.fresh("a"), tuple(shape), np.dtype(dtype)) for dtype, shape in args]
        return child

    def ret(self, values) -> None:
        self.op("stablehlo.return", list(values), [])

    def text(self) -> str:
        head = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        outer = self.indent[:-4]
        label = f"{outer}  ^bb0({head}):\n" if self.args else ""
        return "{\n" + label + "\n".join(self.lines) + f"\n{outer}}}"

    # ------------------------------------------------------------------ core form
    def lower(self, func: Func, inputs: list) -> list:
        """Writes `func`'s equations on `inputs`; returns the Values of its outputs."""
        for var, value in zip(func.params, inputs):
            self.env[var.id] = value
        for eqn in func.eqns:
            self.equation(eqn)
        return [self.atom(o) for o in func.outs]

    def equation(self, eqn) -> None:
        rule = LOWER.get(eqn.prim)
        if rule is None:
            raise TransformError(f"the XLA backend has no lowering of lax.{eqn.prim} yet", eqn.loc,
                                 hint='compile this function with backend="numpy"')
        outer, self.loc = self.loc, eqn.loc or self.loc
        values = [self.atom(a) for a in eqn.ins]
        try:
            if primitives.get(eqn.prim).kind == "elementwise" and \
                    any(isinstance(v, (Tape, MovedTape)) for v in values):
                outs = self._on_tape_buffers(rule, eqn, values)
            else:
                outs = rule(self, eqn, *values)
        finally:
            self.loc = outer
        for var, value in zip(eqn.outs, outs):
            if value.shape != tuple(var.aval.shape) or value.dtype != var.aval.dtype:
                value = self.coerce([value], var.aval.shape, var.aval.dtype)[0]
            self.env[var.id] = value

    def _on_tape_buffers(self, rule, eqn, values) -> list:
        """An elementwise equation on while loops' tapes (a third derivative combines their
        cotangents) runs on the buffers, in the layout the equation sees (a batched tape's
        trip axis may be moved): rows past the count are computed and never read."""
        first = next(v for v in values if isinstance(v, (Tape, MovedTape)))
        tape = first.tape if isinstance(first, MovedTape) else first
        rows = tape.buffer.shape[0]

        def sized(atom):
            if not isinstance(atom, Var):
                return atom
            a = atom.aval
            return Var(AVal(tuple(rows if d == -1 else d for d in a.shape), a.dtype, a.weak))
        shadow = Eqn([sized(o) for o in eqn.outs], eqn.prim, [sized(a) for a in eqn.ins],
                     eqn.params, eqn.loc, eqn.note)
        outs = rule(self, shadow, *[self._laid_out(v) for v in values])
        if isinstance(first, Tape):
            return [Tape(o, tape.count) for o in outs]
        back = tuple(sorted(range(len(first.permutation)), key=first.permutation.__getitem__))
        return [MovedTape(Tape(self.transpose(o, back), tape.count), first.permutation)
                for o in outs]

    def _laid_out(self, value):
        """A tape's buffer in the layout of its value (a moved tape's buffer transposed)."""
        if isinstance(value, Tape):
            return value.buffer
        if isinstance(value, MovedTape):
            return self.transpose(value.tape.buffer, value.permutation)
        return value

    def sub(self, func: Func, inputs: list) -> list:
        """A nested function's outputs, written inline into this body (calls, custom rules)."""
        return self.lower(func, inputs)


@dataclass
class Tapes:
    """What the module's taped while loops need: the rows each tape holds, and the trip count
    of each loop (extra results, so that the caller sees when a tape was too short)."""
    capacity: int
    counts: list


@dataclass
class Layout:
    """What the module's results are: the function's outputs, then each taped loop's trip
    count; and the Python functions its host calls make (handed to the compiler with the
    module)."""
    num_outs: int
    num_counts: int
    callbacks: list = field(default_factory=list)
    results: list = field(default_factory=list)  # (shape, dtype) of every result, in order

    @property
    def crosses_processes(self) -> bool:
        """Whether a host call is a collective across processes (see `collective.py`)."""
        return any(getattr(fn, "crosses_processes", False) for fn in self.callbacks)


def module_text(func: Func, num_replicas: int = 1, capacity: int = 64, axis_name=None) -> tuple:
    """(the StableHLO module computing `func`, its result Layout); its entry is `main`. With
    `axis_name`, one replica of `num_replicas` runs per example of pmap's axis of that name."""
    namer = Namer()
    body = Body(namer, "    ")
    body.tapes = Tapes(capacity, [])
    body.replicas = (axis_name, num_replicas) if axis_name is not None else None
    params = [Value("%" + namer.fresh(v.hint or "arg"), tuple(v.aval.shape), v.aval.dtype)
              for v in func.params]
    body.loc = func.loc
    outs = body.lower(func, params)
    outs = [body.coerce([v], o.aval.shape, o.aval.dtype)[0] for v, o in zip(outs, func.outs)]
    layout = Layout(len(outs), len(body.tapes.counts), body.callbacks)
    outs = outs + body.tapes.counts
    layout.results = [(tuple(v.shape), np.dtype(v.dtype)) for v in outs]
    body.loc = func.loc
    body.op("func.return", outs, [])
    args = ", ".join(f"{p.name}: {p.type}" for p in params)
    results = ", ".join(o.type for o in outs)
    body_text = _without_unused_constants("\n".join(body.lines))
    text = (f"module @{_symbol(func.name)} attributes {{mhlo.num_replicas = {num_replicas} : i32, "
            f"mhlo.num_partitions = 1 : i32}} {{\n"
            f"  func.func public @main({args}) -> ({results}) {{\n"
            + body_text + "\n  }\n}\n")
    return text, layout


def _without_unused_constants(text: str) -> str:
    """Drops constants nothing reads (literals the lowerings converted or broadcast as text),
    so that the module reads as the computation it is."""
    import re
    lines = text.split("\n")
    defined = re.compile(r'^\s*(%[\w.$-]+) = "stablehlo.constant"')
    results = re.compile(r"^\s*%[\w.$:#-]+(, %[\w.$:#-]+)* = ")  # (what a line defines)
    names = re.compile(r"%[\w.$-]+")
    uses: dict = {}
    for line in lines:
        target = defined.match(line)
        written = results.match(line)
        for name in names.findall(line[written.end():] if written else line):
            uses[name] = uses.get(name, 0) + 1
        if target:
            uses.setdefault(target.group(1), 0)
    return "\n".join(line for line in lines
                     if not ((m := defined.match(line)) and uses.get(m.group(1)) == 0))


def _symbol(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "main"
