"""Core form -> the text of a Numba module: one `@njit` function per top-level `Func`, its
branches and loop bodies inlined, its array work fused into loop nests.

The fusion plan
---------------
A Func's equations are read in order (by `block.Block`) and each value gets one of three forms
(`values.py`): *unrolled* (static size <= 16, one scalar local per element), an *array* in
memory, or a *view* (an index map read where it is used).  Equations are partitioned so:

1. Elementwise equations, reductions and index maps of values that are being computed join a
   loop nest (`nest.py`) whose domain is their shape.  A nest is one loop per domain axis;
   with row reductions (over the trailing axes k..) it is a loop over the rows (axes ..k)
   holding at most a few *passes* over each row: a pass computes what the previous passes'
   reductions allow, so mean, variance, normalisation, affine and activation of a row are one
   loop nest.  Equations that read no value of an open nest do not close it (they are
   emitted ahead of it), so independent work does not split a nest; an equation that reads
   two open nests over the same domain (up to axes of size 1) merges them.  An elementwise
   equation on values that are functions of the position alone (iotas, fills, scalars and
   views of them: jacfwd's one-hot basis) is itself a view, its expression written where
   it is read (up to `block.INDEX_VIEW_COST` operations).
2. broadcast_in_dim, reshape, transpose, slice, rev, squeeze, expand_dims, pad, concatenate,
   iota, full, dynamic_slice and gathers with static structure become index maps (views): no
   code, a read at the mapped index in the loop that consumes them.  A view whose operand is
   a member of an open nest and that only renames axes (size-1 reshapes, broadcasts,
   transposes) is an alias inside the nest; one that moves elements closes the nest first.
   A stored alias that transposes is stored in its own order.  A nest's innermost loop
   whose reads are guarded (padding) is cut in three: edges with the guards, an interior
   without them (`values.guard_holds`), which vectorises.
3. Values of static size <= 16 are unrolled: elementwise work, slicing, stacking,
   concatenation, reductions and small contractions on them are scalar statements.
4. Everything else is *opaque*: its `LOWER` rule gets materialised operands (C-contiguous
   arrays, or scalars) and binds materialised results.  Control flow (`EMIT` rules) is
   inlined: `if`, `while` and `for` statements in the same function, loop carries in locals
   (scalars for unrolled carries), scan outputs and reverse-mode tapes written into arrays
   allocated before the loop.

When a value is materialised (the stated rule): a member of a nest is stored to memory only
when something outside its nest reads it (a later nest, an opaque equation, control flow, the
function's result); an unrolled value only when it is read at a run-time index or handed to
an opaque equation; a view only when an opaque equation or control flow needs an array (then
it is copied once, by a loop).  Nothing is stored because it is read twice: inside a nest a
value is a local, recomputed in a later pass rather than stored.

Calling convention
------------------
The generated top-level function takes C-contiguous arrays and, for 0-d parameters, scalars
of the parameter's dtype, and returns a tuple (a bare value for one result) of C-contiguous
arrays and scalars of the result avals' dtypes.  Arrays it returns or receives are never
written after they are produced, so aliasing between values is harmless.  Dtypes are the
avals': literals are typed (`np.float32(2.0)`), operands are cast to the dtype the operation
computes in, results narrower than Numba's arithmetic are cast back.

Rule tables, filled by one module per primitive kind:
    SCALAR, elementwise primitives: `rule(op: ScalarOp) -> str`, a scalar expression;
    LOWER, every other primitive without an EMIT rule (the opaque path, always correct):
        `rule(fe, eqn, ins: [str], outs: [str]) -> [str]`, source lines (relative
        indentation of four spaces per level) binding every name in `outs`;
    VIEW (optional, shape/creation/indexing): `rule(fe, eqn, operands: [Value]) -> Value`
        or None to fall back to LOWER;
    EMIT (control flow, calls): `rule(fe, eqn) -> None`, emitting with the block API
        (`fe.value`, `fe.inline`, `fe.bind`).
"""
import builtins
import os

import numpy as np

from astjax.core.primitives import RuleTable

from .scalars import (NARROW_OK, PRANGE_MIN_SIZE, SCALAR, ScalarOp, cast,  # noqa: F401
                      dtype_text, scalar_expression, scalar_literal)

EMIT = RuleTable("numba_emit", "rule(fe: Block, eqn) -> None",
                 covers=lambda prim: prim.kind in ("control", "custom"))
LOWER = RuleTable("numba", "rule(fe: Block, eqn, ins: [str], outs: [str]) -> [str]",
                  covers=lambda prim: prim.kind != "elementwise" and prim.name not in EMIT)
VIEW = RuleTable("numba_view", "rule(fe: Block, eqn, operands: [Value]) -> Value | None",
                 covers=lambda prim: prim.kind in ("shape", "creation", "indexing",
                                                   "contraction"))


# Rewrites of an opaque equation before its operands are materialised, so a view it can read
# as it is (a transposed matrix, for BLAS) is not copied: prim -> fold(fe, eqn) -> eqn.
FOLD: dict = {}
# Equations that may instead be emitted as other equations joining loop nests (a small matrix
# product as products and a sum): prim -> inline(fe, eqn) -> bool (False: not inlined).
INLINE: dict = {}


def has_lowering(name: str) -> bool:
    return name in SCALAR or name in LOWER or name in EMIT


# Names generated code uses as modules or helpers: never given to a value.
# the modules generated code reads, and Python's builtins (it calls max, min, abs, range...:
# a local named like one would shadow it)
MODULE_NAMES = {"numba", "vecmath", "rt", "math", "prange", "njit"} | {
    name for name in dir(builtins) if not name.startswith("_")}
def _comment(eqn, last_line) -> tuple:
    """`  # file.py:3  y = ...` when the equation computes a new source line (as printer.py)."""
    loc = eqn.loc
    if loc is None or (loc.file, loc.line, eqn.note) == last_line:
        return "", last_line
    note = f"{eqn.note} " if eqn.note else ""
    return (f"  # {note}{os.path.basename(loc.file)}:{loc.line}  {loc.text().strip()}",
            (loc.file, loc.line, eqn.note))


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


def transposed(text: str, axes) -> str:
    """`text.transpose(axes)`, a view, as generated code writes it (rt.transposed: see
    alloc_runtime)."""
    return f"rt.transposed({text}, {tuple_text([str(a) for a in axes])})"


def as_dtype(text: str, aval, dtype) -> str:
    """An array or scalar value converted to dtype (unchanged when it already is)."""
    if np.dtype(aval.dtype) == np.dtype(dtype):
        return text
    if aval.shape == ():
        return cast(text, aval.dtype, dtype)
    return f"{text}.astype({dtype_text(dtype)})"

