"""Prints core form as Python source: the form users read, pdb steps through, backends compile.

Names come from the user's variables where there is one (`y`, `y_1`), otherwise from the
primitive (`tanh`, `mul_1`). Each statement computing a new user line carries a comment
pointing home: `# model.py:3  if jnp.sum(y) > limit:`.
"""
import keyword
import math
import os

import numpy as np

from .avals import AVal
from .dims import DimExpr, by_size, known_equal
from .primitives import PRIMITIVES
from .ir import Eqn, Func, Lit, Var, sub_funcs

RESERVED = set(keyword.kwlist) | {"lax", "np", "float", "int", "bool"}


class Namer:
    """Unique, readable names within one function body."""

    def __init__(self, taken=()):
        self.names: dict = {}
        self.used = set(taken) | RESERVED
        self._next: dict = {}  # base -> the suffix to try next (so a common base stays O(1))

    def fresh(self, base: str) -> str:
        base = _identifier(base)
        n = self._next.get(base, 0)
        name = base if n == 0 else f"{base}_{n}"
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        self._next[base] = n + 1
        return name

    def bind(self, var: Var, base: str) -> str:
        self.names[var.id] = self.fresh(var.hint or base)
        return self.names[var.id]

    def __getitem__(self, var: Var) -> str:
        return self.names[var.id]


def _identifier(text: str) -> str:
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in text) or "t"
    return "_" + text if text[0].isdigit() else text


HOIST_INDENT = 4 * 40  # nested bodies deeper than this are defined in the top function's body


class ModulePrinter:
    """Prints one top-level Func (and its nested ones) plus the constants it needs."""

    def __init__(self, lax: str = "lax", np: str = "np", const_prefix: str = "_c",
                 reuse_buffers: bool = False):
        self.consts: dict = {}
        self.reuse_buffers = reuse_buffers  # (see _reused_buffers)
        self.sizes: dict = {}  # symbol -> the name the generated code reads its size from
        self.lax, self.np, self.const_prefix = lax, np, const_prefix  # names the code uses

    def literal(self, value) -> str:
        if isinstance(value, DimExpr):
            return value.code(self.sizes)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return self.literal(value[()])
        if isinstance(value, np.ndarray):
            name = f"{self.const_prefix}{len(self.consts)}"
            self.consts[name] = value
            return name
        if isinstance(value, np.generic):
            return f"{self.np}.{value.dtype.name}({self.scalar(value.item())})"
        return self.scalar(value)

    def scalar(self, value) -> str:
        return _scalar(value).replace("np.", f"{self.np}.")

    def atom(self, atom, namer: Namer) -> str:
        return namer[atom] if isinstance(atom, Var) else self.literal(atom.value)

    def func(self, func: Func, indent: str = "", namer: Namer = None, fname: str = None) -> list:
        top = namer is None
        namer = namer or Namer(self.taken())
        params = [namer.bind(v, "x") for v in func.params]
        lines = [f"{indent}def {fname or func.name}({', '.join(params)}):"]
        body = indent + "    "
        if top:
            lines += self.size_lines(func, namer, body)
            self.top, self.hoisted = (namer, body), []
        last_line = None
        used = _used_ids(func)
        released = _released_after(func)
        reused = _reused_buffers(func, released) if self.reuse_buffers else {}
        body_lines = []
        for i, eqn in enumerate(func.eqns):
            comment, last_line = _comment(eqn, last_line)
            body_lines += self.eqn(eqn, body, namer, comment, used, reused.get(i))
            if released.get(i) and i < len(func.eqns) - 1:  # large values dead from here on
                body_lines.append(f"{body}del {', '.join(namer[v] for v in released[i])}")
        if top:  # bodies nested too deep for Python's indentation, defined up front
            body_lines = self.hoisted + body_lines
        outs = ", ".join(self.atom(o, namer) for o in func.outs)
        return lines + body_lines + [f"{body}return {outs if func.outs else '()'}"]

    def eqn(self, eqn: Eqn, indent: str, namer: Namer, comment: str, used: set,
            into: Var = None) -> list:
        lines, fn_names = [], {}
        for sub in sub_funcs(eqn):
            if len(indent) > HOIST_INDENT:  # (Python allows 100 levels of indentation)
                top_namer, top_body = self.top
                fn_names[id(sub)] = name = top_namer.fresh(sub.name)
                self.hoisted += self.func(sub, top_body, Namer(self.taken()), name)
                continue
            fn_names[id(sub)] = name = namer.fresh(sub.name)
            lines += self.func(sub, indent, Namer(self.taken()), name)
        args = [self.atom(a, namer) for a in eqn.ins]
        if into is not None:  # (a ufunc's result written over a dead value's memory)
            args.append(f"out={namer[into]}")
        call = _CALL_FORMS.get(eqn.prim, _plain_call)(eqn, args, fn_names, self)
        outs = [namer.bind(v, eqn.prim) if v.id in used or len(eqn.outs) == 1 else "_"
                for v in eqn.outs]
        target = f"{', '.join(outs)}{',' if _returns_list(eqn, outs) else ''} = " if outs else ""
        lines.append(f"{indent}{target}{call}{comment}")
        return lines

    def taken(self) -> list:
        """Names a body may not give a value: the sizes and the modules the code calls."""
        return list(self.sizes.values()) + [self.lax, self.np]

    def size_lines(self, func: Func, namer: Namer, indent: str) -> list:
        """`x_dim0 = x.shape[0]` for every symbolic size the function's code spells out."""
        used = _symbols_used(func)
        lines = []
        for param in func.params:
            for axis, d in enumerate(param.aval.shape):
                if isinstance(d, DimExpr) and len(d.terms) == 1 and d.symbols() <= used:
                    (sym,) = d.symbols()
                    if sym not in self.sizes and list(d.terms) == [(sym,)] and d.terms[(sym,)] == 1:
                        self.sizes[sym] = namer.fresh(sym.code)
                        lines.append(f"{indent}{self.sizes[sym]} = {namer[param]}.shape[{axis}]")
        return lines

    def param(self, value, fn_names) -> str:
        if isinstance(value, DimExpr):
            return value.code(self.sizes)
        if isinstance(value, Func):
            return fn_names[id(value)]
        if isinstance(value, tuple):
            inner = ", ".join(self.param(v, fn_names) for v in value)
            return f"({inner}{',' if len(value) == 1 else ''})"
        if isinstance(value, np.dtype):
            return repr(value.name)
        if isinstance(value, float):
            return self.scalar(value)
        if isinstance(value, AVal) or getattr(value, "printed_as_constant", False):
            name = f"{self.const_prefix}{len(self.consts)}"  # (a live object: a constant)
            self.consts[name] = value
            return name
        return repr(value)


def _symbols_used(func: Func) -> set:
    """The symbols spelt out in the code of `func` and its nested functions: in parameters of
    equations and in literals."""
    out = set()
    for eqn in func.eqns:
        for a in eqn.ins:
            out |= _symbols_in_literal(a)
        out |= _symbols_in_param(eqn.params)
    for o in func.outs:
        out |= _symbols_in_literal(o)
    return out


def _symbols_in_literal(atom) -> set:
    if not isinstance(atom, Lit):
        return set()
    value = atom.value
    if isinstance(value, np.ndarray) and value.ndim == 0:  # a size held as a 0-d array
        value = value[()]
    return value.symbols() if isinstance(value, DimExpr) else set()


def _symbols_in_param(value) -> set:
    if isinstance(value, DimExpr):
        return value.symbols()
    if isinstance(value, Func):
        return _symbols_used(value)
    if isinstance(value, dict):
        return set().union(*[_symbols_in_param(v) for v in value.values()])
    if isinstance(value, (tuple, list)):
        return set().union(*[_symbols_in_param(v) for v in value])
    return set()


RELEASE_BYTES = 1 << 20  # values this large (or of run-time size) are deleted after last use


def _released_after(func: Func) -> dict:
    """eqn index -> the large Vars whose last read is that equation (not results)."""
    last, var_of = {}, {}
    for i, eqn in enumerate(func.eqns):
        for atom in eqn.ins:
            if isinstance(atom, Var):
                last[atom.id], var_of[atom.id] = i, atom
    kept = {o.id for o in func.outs if isinstance(o, Var)}
    released: dict = {}
    for vid, i in last.items():
        if vid not in kept and _large(var_of[vid].aval):
            released.setdefault(i, []).append(var_of[vid])
    return released


def _reused_buffers(func: Func, released: dict) -> dict:
    """eqn index -> the dead value whose memory the eqn's result is written into (`out=`).
    A value taken after its last read is deleted after the eqn that takes it instead
    (`released` is changed to say so).

    A NumPy ufunc writing into a dead array of its result's shape and dtype touches no new
    memory: a fresh array's first touch costs its page faults, which on a first call cost more
    than the arithmetic (a chain of 15 ufuncs on 4M floats: 0.12-0.17 s with fresh results,
    0.03-0.06 s reusing them). The array must be the result of a ufunc in this function (so
    no argument, constant or view) read only by ufuncs (which keep no reference to it), and
    of an inexact dtype, where a ufunc's result has its operands' dtype."""
    fresh, spoiled = set(), set()  # ids: results of ufuncs; values read by anything else
    for eqn in func.eqns:
        if not _ufunc(eqn):
            spoiled.update(a.id for a in eqn.ins if isinstance(a, Var))
    reused: dict = {}
    dead: list = []  # (eqn index, value): released private arrays nothing has taken yet
    for i, eqn in enumerate(func.eqns):
        dying = [(i, v) for v in released.get(i, ()) if v.id in fresh and v.id not in spoiled]
        if _ufunc(eqn):
            (out,) = eqn.outs
            # an operand first (in place), else the array dead the longest
            for j, var in dying + dead:
                if _same_buffer(var.aval, out.aval):
                    reused[i] = var
                    if j < i:  # (deleted once taken, not when it died)
                        dead.remove((j, var))
                        released[j] = [v for v in released[j] if v is not var]
                        released.setdefault(i, []).append(var)
                    else:
                        dying.remove((j, var))
                    break
            fresh.add(out.id)
        dead += dying
    return reused


def _ufunc(eqn: Eqn) -> bool:
    return (isinstance(PRIMITIVES[eqn.prim].impl, np.ufunc) and len(eqn.outs) == 1
            and not eqn.params)


def _same_buffer(aval, out) -> bool:
    """Whether a result of aval `out` fits exactly in an array of aval `aval`."""
    if aval.dtype != out.dtype or not np.issubdtype(aval.dtype, np.inexact):
        return False
    if len(aval.shape) == 0 or len(aval.shape) != len(out.shape):
        return False
    return not _run_time_length(aval) and \
        all(known_equal(a, b) for a, b in zip(aval.shape, out.shape))


def _run_time_length(aval) -> bool:
    """Whether a size is -1: a while loop's tape, its length known only when it runs."""
    return any(isinstance(d, (int, np.integer)) and d < 0 for d in aval.shape)


def _large(aval) -> bool:
    """At least RELEASE_BYTES (a tape's run-time length counts as large). For symbolic sizes
    it is a choice by size class: under jit a recorded fact, so code compiled for small arrays
    is compiled again, releasing, when large ones come; ahead of time decided once."""
    if _run_time_length(aval):
        return True
    nbytes = np.dtype(aval.dtype).itemsize
    for d in aval.shape:
        nbytes = nbytes * d
    return by_size(lambda: nbytes >= RELEASE_BYTES)  # a size class: either outcome is correct


def _used_ids(func: Func) -> set:
    used = {o.id for o in func.outs if isinstance(o, Var)}
    for eqn in func.eqns:
        used.update(a.id for a in eqn.ins if isinstance(a, Var))
    return used


def _returns_list(eqn, outs) -> bool:
    """A lone result of a primitive whose implementation returns a list (a decomposition's
    [s]) is unpacked; calls of nested functions (control flow, custom rules) return it bare."""
    prim = PRIMITIVES[eqn.prim]
    return len(outs) == 1 and prim.multiple_results and prim.kind not in ("control", "custom")


def _plain_call(eqn, args, fn_names, printer) -> str:
    params = [f"{k}={printer.param(v, fn_names)}" for k, v in eqn.params.items()]
    return f"{printer.lax}.{eqn.prim}({', '.join(args + params)})"


def _cond_call(eqn, args, fn_names, printer) -> str:
    then_fn, else_fn = (fn_names[id(b)] for b in eqn.params["branches"])
    return f"{printer.lax}.cond({', '.join([args[0], then_fn, else_fn] + args[1:])})"


def _switch_call(eqn, args, fn_names, printer) -> str:
    branches = printer.param(eqn.params["branches"], fn_names)
    return f"{printer.lax}.switch({', '.join([args[0], branches] + args[1:])})"


def _while_call(eqn, args, fn_names, printer) -> str:
    fns = [fn_names[id(eqn.params["cond"])], fn_names[id(eqn.params["body"])]]
    return f"{printer.lax}.{eqn.prim}({', '.join(fns + args)})"


def _scan_call(eqn, args, fn_names, printer) -> str:
    params = [f"{k}={printer.param(v, fn_names)}" for k, v in eqn.params.items() if k != "body"]
    return f"{printer.lax}.scan({', '.join([fn_names[id(eqn.params['body'])]] + args + params)})"


_CALL_FORMS = {"cond": _cond_call, "switch": _switch_call, "while_loop": _while_call,
               "while_loop_taped": _while_call,
               "scan": _scan_call}


def _comment(eqn: Eqn, last_line) -> tuple:
    loc = eqn.loc
    if loc is None or (loc.file, loc.line, eqn.note) == last_line:
        return "", last_line
    text = loc.text().strip()
    note = f"{eqn.note} " if eqn.note else ""
    return (f"  # {note}{os.path.basename(loc.file)}:{loc.line}  {text}",
            (loc.file, loc.line, eqn.note))


def _scalar(value) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "np.nan"
        if math.isinf(value):
            return "np.inf" if value > 0 else "-np.inf"
    return repr(value)


def print_func(func: Func, **names) -> tuple:
    """(source text of `func` as a Python def, {const name: array}); `names` may rename what
    the code calls `lax`, `np` and its constants (`const_prefix`), and `reuse_buffers` writes
    ufuncs' results over dead operands (`out=`)."""
    printer = ModulePrinter(**names)
    lines = printer.func(func)
    return "\n".join(lines) + "\n", printer.consts
