"""What a core-form value is while a function is emitted: scalars in locals, arrays in memory,
or index maps that are read where they are used.

* `Unrolled`: a value of static size up to SMALL_SIZE (every 0-d value, states of ODE
  steppers, 3x3 matrices): one scalar text per element, row-major.  Slicing, stacking,
  reshaping and elementwise work on it are done element by element, allocating nothing.
* `Array`: a C-contiguous Numba array local of the aval's dtype and shape.
* `View`: an index map: `read(index, reader)` is the text of one element, read through
  `reader(value, index)` from the values it is defined on (a slice of an array, an iota, a
  gather through an index array).  Nothing is copied; the loop that consumes a view reads it.

Indices are lists with one entry per axis: an `int` when known statically, else a text.
"""
import ast
import contextlib
import math
import threading

import numpy as np

from astjax.core.dims import DimExpr, concrete, pinned

SMALL_SIZE = 16  # values of at most this many elements live in scalar locals


def is_small(aval) -> bool:
    """Whether the value lives in scalar locals: its size is static (a symbolic size only when
    a fact already pins it, so a free length keeps generic code) and at most SMALL_SIZE."""
    sizes = [pinned(d) for d in aval.shape]
    return all(d is not None and d >= 0 for d in sizes) and math.prod(sizes) <= SMALL_SIZE


class Value:
    aval = None

    @property
    def shape(self) -> tuple:
        return tuple(self.aval.shape)


class Unrolled(Value):
    def __init__(self, aval, elems: list):
        assert len(elems) == max(aval.size, 0) or not aval.shape, (aval, elems)
        self.aval, self.elems = aval, list(elems)

    def read(self, index, reader=None):
        return self.elems[flat_static(index, self.shape)]

    def __repr__(self):
        return f"Unrolled({self.aval}, {self.elems})"


class Array(Value):
    def __init__(self, aval, name: str, root: str = None):
        self.aval, self.name = aval, name
        self.root = root or name  # the allocation it shares memory with (a reshape's base)

    def read(self, index, reader=None):
        if not index:
            return self.name
        return f"{self.name}[{', '.join(text(i) for i in index)}]"

    def __repr__(self):
        return f"Array({self.aval}, {self.name})"


class View(Value):
    """An index map; `element(index, reader) -> text`; `bases` are the values it reads."""

    def __init__(self, aval, element, bases: list, array_text: str = None, fill: str = None):
        self.aval, self.element, self.bases = aval, element, list(bases)
        self.array_text = array_text  # a C-contiguous Numba view holding it, if there is one
        self.fill = fill  # the one value of every element (a broadcast scalar), if it is one

    def read(self, index, reader):
        return self.element(list(index), reader)

    def __repr__(self):
        return f"View({self.aval}, on {self.bases})"


def mapped(aval, base: Value, index_map) -> View:
    """The view reading `base` at `index_map(index)`."""
    return View(aval, lambda index, reader: reader(base, index_map(index)), [base])


def is_static(index) -> bool:
    return all(isinstance(i, (int, np.integer)) for i in index)


def flat_static(index, shape) -> int:
    flat = 0
    for i, d in zip(index, shape):
        flat = flat * d + int(i)
    return flat


def unravel_static(flat: int, shape) -> list:
    index = []
    for d in reversed(shape):
        index.append(flat % d if d else 0)
        flat = flat // d if d else 0
    return index[::-1]


def all_indices(shape) -> list:
    """Every static index of `shape`, row-major."""
    return [unravel_static(k, shape) for k in range(math.prod(shape))]


# ---------------------------------------------------------------- guarded reads
# A padded read is guarded (`a[i - 1] if 0 <= i - 1 < n else 0`); the guard keeps LLVM from
# vectorising the loop. A nest's innermost loop is cut in three where its guards allow: the
# first and last few positions keep them, and over the interior, where every guard holds,
# they are left out (see NestEmitter._split_loop). `probing` collects the guards a body's
# reads would write; `interior` says which positions the body being written covers.
_GUARDS = threading.local()


@contextlib.contextmanager
def probing():
    """Within the block, guarded reads of a loop variable plus a constant are listed in the
    list yielded, as (variable, offset, bound): valid where 0 <= variable + offset < bound."""
    saved = getattr(_GUARDS, "probe", None)
    _GUARDS.probe = found = []
    try:
        yield found
    finally:
        _GUARDS.probe = saved


@contextlib.contextmanager
def interior(var: str, first: int, stop):
    """Within the block, reads are written for `var` in [first, stop) only."""
    saved = getattr(_GUARDS, "ranges", {})
    _GUARDS.ranges = {**saved, var: (first, stop)}
    try:
        yield
    finally:
        _GUARDS.ranges = saved


def guard_holds(index, offset: int, bound) -> bool:
    """Whether 0 <= index + offset < bound holds for every position the read is written for
    (index: the read's index text, a loop variable plus a constant); notes the guard while
    probing."""
    found = affine(index)
    if found is None:
        return False
    var, const = found
    probe = getattr(_GUARDS, "probe", None)
    if probe is not None:
        probe.append((var, const + offset, bound))
    span = getattr(_GUARDS, "ranges", {}).get(var)
    if span is None:
        return False
    first, stop = span
    over = stop + const + offset - bound  # the last position's excess over the bound
    return first + const + offset >= 0 and isinstance(over, (int, np.integer)) and over <= 0


def affine(index):
    """(variable, constant) where an index text is a loop variable plus a constant, else
    None."""
    if not isinstance(index, str):
        return None
    try:
        tree = ast.parse(index, mode="eval").body
    except SyntaxError:
        return None
    return _affine(tree)


def _affine(node):
    if isinstance(node, ast.Name):
        return node.id, 0
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        sign = 1 if isinstance(node.op, ast.Add) else -1
        left, right = node.left, node.right
        if isinstance(right, ast.Constant) and type(right.value) is int:
            inner = _affine(left)
            return None if inner is None else (inner[0], inner[1] + sign * right.value)
        if sign == 1 and isinstance(left, ast.Constant) and type(left.value) is int:
            inner = _affine(right)
            return None if inner is None else (inner[0], inner[1] + left.value)
    return None


# ---------------------------------------------------------------- index arithmetic on texts
def text(i) -> str:
    """An index as code: a static int, a symbolic size (read from the arguments), or text."""
    return str(int(i)) if isinstance(i, (int, np.integer)) else str(i)


def _atom(i) -> str:
    s = text(i)
    return s if s.isidentifier() or s.lstrip("-").isdigit() else f"({s})"


def add(a, b):
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return int(a) + int(b)
    if b == 0:
        return a
    if a == 0:
        return b
    if isinstance(b, (int, np.integer)) and b < 0:
        return f"{_atom(a)} - {-int(b)}"
    return f"{_atom(a)} + {_atom(b)}"


def sub(a, b):
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return int(a) - int(b)
    if b == 0:
        return a
    return f"{_atom(a)} - {_atom(b)}"


def mul(a, k: int):
    if isinstance(a, (int, np.integer)):
        return int(a) * k
    if k == 1:
        return a
    if k == 0:
        return 0
    return f"{_atom(a)} * {k}"


def floordiv(a, k: int):
    if isinstance(a, (int, np.integer)):
        return int(a) // k
    return a if k == 1 else f"{_atom(a)} // {k}"


def mod(a, k: int):
    if isinstance(a, (int, np.integer)):
        return int(a) % k
    return 0 if k == 1 else f"{_atom(a)} % {k}"


def flatten(index, shape):
    """The row-major flat position of `index` in a static `shape`."""
    flat = 0
    for i, d in zip(index, shape):
        flat = add(mul(flat, d), i)
    return flat


def reshape_index(index, out_shape, base_shape) -> list:
    """The index in `base_shape` of `index` in `out_shape`, the same elements row-major.

    Runs of dims whose sizes multiply to the same product on both sides are mapped each on
    its own, and dims of size 1 read 0, so a dim a reshape keeps passes through with no
    division (n x m -> n x 1 x m reads [i, 0, k], not [(i*m + k) // m, 0, (i*m + k) % m])."""
    kept = [(i, d) for i, d in zip(index, out_shape) if not _is_one(d)]
    slots = [k for k, d in enumerate(base_shape) if not _is_one(d)]
    groups = _reshape_groups([d for _, d in kept], [base_shape[k] for k in slots])
    if groups is None:
        return unravel(flatten(index, out_shape), base_shape)
    base = [0] * len(base_shape)
    for (a, b), (c, d) in groups:
        sizes = [size for _, size in kept[a:b]]
        if b - a == 1 and d - c == 1:
            values = [kept[a][0]]
        else:
            values = unravel(flatten([i for i, _ in kept[a:b]], sizes),
                             [base_shape[k] for k in slots[c:d]])
        for k, value in zip(slots[c:d], values):
            base[k] = value
    return base


def _is_one(d) -> bool:
    return isinstance(d, (int, np.integer)) and d == 1


def _reshape_groups(out: list, base: list):
    """[((out start, end), (base start, end))] of runs of dims with equal products (None
    where the sizes do not split so). Symbolic sizes are grouped by their witnesses and
    kept only when the products are the same expression."""
    out_w, base_w = concrete(out), concrete(base)
    groups, i, j = [], 0, 0
    while i < len(out) and j < len(base):
        start, p, q, pw, qw = (i, j), out[i], base[j], out_w[i], base_w[j]
        i, j = i + 1, j + 1
        while pw != qw:
            if pw < qw and i < len(out):
                p, pw, i = p * out[i], pw * out_w[i], i + 1
            elif qw < pw and j < len(base):
                q, qw, j = q * base[j], qw * base_w[j], j + 1
            else:
                return None
        if not _same_size(p, q):
            return None
        groups.append(((start[0], i), (start[1], j)))
    return groups if i == len(out) and j == len(base) else None


def _same_size(p, q) -> bool:
    """Whether two sizes are the same for every value of their symbols."""
    diff = p - q
    if isinstance(diff, DimExpr):
        return all(c == 0 for c in diff.terms.values())
    return diff == 0


def unravel(flat, shape) -> list:
    """The index in a static `shape` of row-major position `flat`."""
    index, stride = [], 1
    strides = []
    for d in reversed(shape):
        strides.append(stride)
        stride *= d
    strides = strides[::-1]
    for axis, (d, st) in enumerate(zip(shape, strides)):
        if d == 1:
            index.append(0)
        else:
            index.append(floordiv(flat, st) if axis == 0 else mod(floordiv(flat, st), d))
    return index
