"""Applying a primitive: computed at once on NumPy arrays, or recorded as an equation.

While a function is being compiled a `Builder` is active and every primitive applied is recorded
into it (with the user's source line it comes from); outside compilation primitives run eagerly
on NumPy, which is what makes `astjax.numpy` usable as a plain array library.
"""
import contextlib
import threading

import numpy as np

from . import primitives, table  # noqa: F401  (table: every primitive registered)
from .avals import (AVal, canonical_dtype, canonical_value, converted, promoted_values,
                    promotion_target, x64)
from .array import Array, as_array
from .dims import DimExpr
from .ir import Eqn, Lit, Var, as_atom

_state = threading.local()


class Builder:
    """Collects the equations of one function body."""

    def __init__(self):
        self.eqns = []
        self.loc = None  # the user's SourceLoc that equations emitted now compute
        self.note = ""   # e.g. "grad of": how equations emitted now relate to that line

    def emit(self, name: str, operands, params: dict):
        prim = primitives.get(name)
        values = [o.value if isinstance(o, Lit) else o for o in operands]
        if _foldable(prim, values):  # Python scalars only: compute now, stay a Python scalar
            return weak_scalar(prim.impl(*values, **params))
        atoms = [as_atom(o) for o in operands]
        if name in PROMOTED or name in FLOAT_ONLY:
            atoms = self._promoted(name, atoms)
        if not x64():
            params = _narrow_params(params)
            if prim.kind != "elementwise":
                atoms = [self._as_narrow_array(a) for a in atoms]
        out = prim.abstract(*[a.aval for a in atoms], **params)
        out_avals = list(out) if prim.multiple_results else [out]
        outs = [Var(a) for a in out_avals]
        for v in outs:
            v.origin = name
        self.eqns.append(Eqn(outs, name, atoms, params, self.loc, self.note))
        if not x64():
            outs = [self._narrowed(v) for v in outs]
        return outs if prim.multiple_results else outs[0]

    def _promoted(self, name: str, atoms: list) -> list:
        """The operands in JAX's promotion (avals.result_dtype): an integer or bool array
        among float ones, or a weak array of another dtype, converted first; integers
        converted to a float before a float-only operation (`promotion_target`)."""
        skip = 1 if name == "select" else 0  # (its predicate stays bool)
        dtype = promotion_target([a.aval for a in atoms[skip:]], name in FLOAT_ONLY)
        if dtype is None:
            return atoms
        return atoms[:skip] + [self._converted(a, dtype)
                               if converted(a.aval, dtype) and not _python_number(a) else a
                               for a in atoms[skip:]]

    def _converted(self, atom, dtype):
        """atom converted to `dtype`; a weakly typed one stays weak (JAX's convert with
        weak_type): `0.9 ** i` of a loop counter is a weak float, which leaves a float32
        partner float32."""
        if not atom.aval.weak or isinstance(atom, Lit):
            return as_atom(self.emit("convert", [atom], {"dtype": dtype.name}))
        out = Var(AVal(atom.aval.shape, dtype, True))
        out.origin = "convert"
        self.eqns.append(Eqn([out], "convert", [atom], {"dtype": dtype.name}, self.loc,
                             self.note))
        return out

    def _as_narrow_array(self, atom):
        """A weak scalar that is a Python number when the code runs (a literal, a Python
        argument) as an array of its 32-bit dtype: a primitive that is not elementwise
        (broadcast_in_dim, concatenate) would make a Python float float64."""
        if not atom.aval.weak or atom.aval.shape != ():
            return atom
        if isinstance(atom, Lit):
            if not isinstance(atom.value, PYTHON_SCALARS):
                return atom
            return as_atom(np.asarray(atom.value, atom.aval.dtype))
        return as_atom(self.emit("convert", [atom], {"dtype": atom.aval.dtype.name}))

    def _narrowed(self, v: Var) -> Var:
        """v converted to its 32-bit dtype when NumPy's rule widened it (int32 + float32)."""
        dtype = canonical_dtype(v.aval.dtype)
        if dtype == v.aval.dtype:
            return v
        out = Var(AVal(v.aval.shape, dtype, v.aval.weak))
        out.origin = "convert"
        self.eqns.append(Eqn([out], "convert", [v], {"dtype": dtype.name}, self.loc, self.note))
        return out


# The elementwise primitives whose operands meet in one dtype (NumPy's ufunc promotion).
PROMOTED = frozenset({"add", "sub", "mul", "div", "floor_divide", "rem", "pow", "max", "min",
                      "atan2", "logaddexp", "polygamma", "complex", "eq", "ne", "lt", "le",
                      "gt", "ge", "clamp", "select"})


# The primitives that compute in floats whatever their operands: integer and bool operands
# are converted first, to JAX's float for them (int32 to float32; NumPy would use float64).
FLOAT_ONLY = frozenset({"sqrt", "rsqrt", "cbrt", "exp", "exp2", "expm1", "log", "log1p",
                        "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                        "cosh", "tanh", "asinh", "acosh", "atanh", "logistic", "erf", "erfc",
                        "erf_inv", "lgamma", "digamma", "div", "atan2", "logaddexp",
                        "polygamma"})


def _python_number(atom) -> bool:
    """A literal Python number, or a symbolic size (a Python int when the code runs): NumPy
    itself lets it take its partner's dtype (NEP 50)."""
    return isinstance(atom, Lit) and isinstance(atom.value, PYTHON_SCALARS + (DimExpr,))


def _narrow_params(params: dict) -> dict:
    """A requested 64-bit dtype means its 32-bit kind without x64 (as in JAX)."""
    dtype = params.get("dtype")
    if dtype is None or not isinstance(dtype, (str, np.dtype, type)):
        return params
    try:
        narrow = canonical_dtype(dtype)
    except TypeError:  # an extended dtype (typed keys): not a NumPy one
        return params
    return params if narrow == np.dtype(dtype) else {**params, "dtype": narrow.name}


def _stack() -> list:
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def current_builder():
    stack = getattr(_state, "stack", None)  # (on every jitted call: kept to one lookup)
    return stack[-1] if stack else None


@contextlib.contextmanager
def building(builder: Builder):
    _stack().append(builder)
    try:
        yield builder
    finally:
        _stack().pop()


@contextlib.contextmanager
def eager():
    """Run primitives on NumPy even inside a compilation (for static-only helpers)."""
    _stack().append(None)
    try:
        yield
    finally:
        _stack().pop()


def bind(name: str, *operands, **params):
    builder = current_builder()
    if builder is not None:
        return builder.emit(name, operands, params)
    if any(isinstance(o, Var) for o in operands):
        raise RuntimeError(f"lax.{name} applied to an abstract value outside compilation")
    prim = primitives.get(name)
    values = [_value(o) for o in operands]
    if not x64():
        values, params = [canonical_value(v) for v in values], _narrow_params(params)
    if name in PROMOTED or name in FLOAT_ONLY:
        skip = 1 if name == "select" else 0  # (its predicate stays bool)
        values = values[:skip] + promoted_values(values[skip:], name in FLOAT_ONLY)
    out = prim.impl(*values, **params)
    if prim.multiple_results:
        return [as_array(canonical_value(o)) for o in out]
    if stays_weak(prim, values, out):
        return weak_scalar(out)
    return as_array(canonical_value(out))


PYTHON_SCALARS = (bool, int, float, complex)


def stays_weak(prim, operands, out) -> bool:
    """An elementwise result of Python scalars only is weakly typed (as the compiler types
    it, and as in JAX); returned as a Python scalar it stays weak under NumPy's rules."""
    values = operands[1:] if prim.name == "select" else operands  # the predicate aside
    return (prim.kind == "elementwise" and prim.name != "convert" and np.ndim(out) == 0
            and all(isinstance(o, PYTHON_SCALARS) for o in values))


def _foldable(prim, values) -> bool:
    return (prim.kind == "elementwise" and prim.name != "convert"
            and all(isinstance(v, PYTHON_SCALARS) for v in values))


def weak_scalar(out):
    return np.asarray(out).item()


def _value(operand):
    """A concrete operand as the NumPy implementations take it (an Array as a plain ndarray:
    the implementation's own NumPy math needs no Array dispatch)."""
    if isinstance(operand, Array):
        return operand.view(np.ndarray)
    return operand.value if isinstance(operand, Lit) else operand


def is_abstract(x) -> bool:
    return isinstance(x, Var)


def aval(x) -> AVal:
    from .avals import aval_of
    if isinstance(x, (Var, Lit)):
        return x.aval
    known = getattr(x, "aval", None)  # a value that states its abstract value (ShapeDtypeStruct)
    return known if isinstance(known, AVal) else aval_of(x)
