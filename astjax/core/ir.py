"""The core form, in memory: a function of variables and one primitive per equation.

It prints as plain Python (see `printer.py`): `name = lax.<primitive>(operands..., param=...)`
statements, nested `def`s for branch and loop bodies, and a `return`. Every transformation takes a
`Func` and returns a `Func`; every backend compiles a `Func`.
"""
import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from .avals import AVal, aval_of, canonical_value
from .dims import DimExpr

_ids = itertools.count()


class Var:
    """A value known only abstractly (shape, dtype) while a function is compiled.

    `hint` is the name the printer will prefer (the user's variable name, when there is one).
    Arithmetic, indexing and array methods dispatch through `Var.ops`, which `astjax.numpy`
    fills in, so library code runs unchanged on Vars and on NumPy arrays.
    """
    __slots__ = ("aval", "hint", "id", "origin")
    ops: dict = {}
    __array_ufunc__ = None  # make NumPy defer `ndarray + Var` to Var.__radd__

    def __init__(self, aval: AVal, hint: str = ""):
        self.aval, self.hint, self.id = aval, hint, next(_ids)
        self.origin = ""  # the primitive that computed it, a fallback for names

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def __repr__(self) -> str:
        return f"Var({self.hint or '_'}#{self.id}: {self.aval})"

    def __setstate__(self, state):
        # Unpickled (the front end's result on disk, written by another process): an id of
        # this process, as passes key their tables by id and the writer's ids may be ones
        # this process has given to other values.
        for name, value in state[1].items():
            setattr(self, name, value)
        self.id = next(_ids)

    def __hash__(self):
        return self.id

    def __eq__(self, other):
        return Var.ops["eq"](self, other)

    def __ne__(self, other):
        return Var.ops["ne"](self, other)

    def __bool__(self):
        return Var.ops["bool"](self)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getattr__(self, name):
        method = Var.ops.get("method:" + name)
        if method is None:
            raise AttributeError(f"arrays have no attribute {name!r}")
        return method(self)


def _dunder(op: str, swap: bool = False):
    if swap:
        return lambda self, other: Var.ops[op](other, self)
    return lambda self, *other: Var.ops[op](self, *other)


for _name, _op in [("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                   ("floordiv", "floor_divide"), ("mod", "rem"), ("pow", "pow"),
                   ("matmul", "matmul"), ("and", "bitwise_and"), ("or", "bitwise_or"),
                   ("xor", "bitwise_xor"), ("lshift", "left_shift"), ("rshift", "right_shift")]:
    setattr(Var, f"__{_name}__", _dunder(_op))
    setattr(Var, f"__r{_name}__", _dunder(_op, swap=True))
for _name, _op in [("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge"), ("neg", "neg"),
                   ("pos", "pos"), ("abs", "abs"), ("invert", "invert"), ("getitem", "getitem"),
                   ("int", "int"), ("float", "float"), ("index", "index")]:
    setattr(Var, f"__{_name}__", _dunder(_op))


class Missing:
    """A value not assigned yet on this path: the return value of a loop that has not
    returned (the front end's source rewriting writes a placeholder that reads as MISSING).

    Converted control flow (`astjax/control.py`) replaces it by zeros shaped like the value
    other paths assign, so every path carries the same structure, and the flags that guard it
    keep those zeros unused. Where no path assigns it, it stays MISSING: a body output that
    is neither computed nor batched.
    """

    def __repr__(self):
        return "MISSING"


MISSING = Missing()


@dataclass
class Lit:
    """A constant operand: a Python scalar (weakly typed), a NumPy scalar or a NumPy array."""
    value: Any

    @property
    def aval(self) -> AVal:
        return aval_of(self.value)



@dataclass
class Eqn:
    outs: list
    prim: str
    ins: list
    params: dict
    loc: Optional[Any] = None  # errors.SourceLoc of the user's line this computes
    note: str = ""             # how it relates to that line: "" or e.g. "grad of"


@dataclass
class Func:
    name: str
    params: list
    eqns: list = field(default_factory=list)
    outs: list = field(default_factory=list)
    loc: Optional[Any] = None

    @property
    def in_avals(self) -> list:
        return [v.aval for v in self.params]

    @property
    def out_avals(self) -> list:
        return [o.aval for o in self.outs]



def as_atom(value):
    """A Var stays itself; a scalar or an array becomes a literal."""
    if isinstance(value, Var):
        return value
    if isinstance(value, Lit):
        return value
    if isinstance(value, (np.generic, np.ndarray)):
        return Lit(canonical_value(value))
    if isinstance(value, (bool, int, float, complex, DimExpr)):
        return Lit(value)
    raise TypeError(f"not an array value: {type(value).__name__}")


def sub_funcs(eqn: Eqn):
    """The nested functions of a control-flow equation (branches, loop bodies)."""
    for value in eqn.params.values():
        if isinstance(value, Func):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, Func))
