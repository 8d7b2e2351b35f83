"""A kernel's parallel loops written as functions of their own, run by `rt.parallel`.

The emitter writes a parallel loop as `for i in numba.prange(n):`, which needs Numba's
parfors (`parallel=True`: see parallel_runtime.py for what they cost to compile). This pass
turns each outermost one into a module-level function over a block of its positions,

    @numba.njit(error_model='numpy')
    def chunk_loop(chunk_start, chunk_stop, x_dim1, x_dim0, x, div):
        for chunk in range(chunk_start, chunk_stop):
            ...the loop's body, as it was...

and the loop into `rt.parallel(chunk_loop, n, (x_dim1, x_dim0, x, div))`. The function
takes every name the body reads that the kernel binds; what the body binds is its own. The
emitter's parallel loops write only their own slots of arrays made before them and bind
nothing that is read after them (parfors need that too); a loop that does is left to parfors.
"""
import ast

from astjax.core.printer import Namer

PRANGE = "numba.prange"
DECORATOR = "@numba.njit(error_model='numpy')"
# A signed index may be negative (counting from the end), so Numba checks it on every access,
# and that check keeps LLVM from vectorising the loop (gathers instead of loads: an
# elementwise loop ran 3x slower). The loop's position is never negative: its function
# indexes by an unsigned copy of it, as parfors do.
UNSIGNED_WHY = "# (unsigned: no check for a negative index)"


class _Unsuitable(Exception):
    """A parallel loop this pass leaves to parfors."""


def outline(lines: list, params: list, fresh) -> tuple:
    """(the kernel's lines with its outermost parallel loops as `rt.parallel` calls, the
    loops' functions: one list of lines each), or None where some loop must stay a prange.
    `lines` is the kernel's body at indentation 0, `params` its parameters, and `fresh(base)`
    a module-level name not used yet."""
    source = "\n".join(lines)
    lines = source.split("\n")  # (one entry a line, as the parser counts them)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    loops = list(_outermost_pranges(tree.body))
    if not loops:
        return None
    kernel = _Kernel(source, tree, params, fresh)
    out, functions, done = [], [], 0
    try:
        for loop in loops:
            first, last = loop.lineno - 1, loop.end_lineno - 1
            out += lines[done:first]
            call, function = kernel.outlined(loop, lines, first, last)
            out.append(call)
            functions.append(function)
            done = last + 1
    except _Unsuitable:
        return None
    return out + lines[done:], functions


def _is_prange(node) -> bool:
    return isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
        and ast.unparse(node.iter.func) == PRANGE


def _outermost_pranges(body):
    for node in body:
        if _is_prange(node):
            yield node
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _outermost_pranges(getattr(node, field, []) or [])


class _Kernel:
    """What outlining one kernel's loops needs to know of the whole kernel."""

    def __init__(self, source: str, tree, params: list, fresh):
        self.source = source
        every = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]  # (one walk serves all)
        self.names = {n.id for n in every} | set(params)
        self.params = set(params)
        self.binders: dict = {}  # name -> the nodes binding it (assignments, loop targets)
        self.reads = []  # the nodes reading a name
        for n in every:
            if isinstance(n.ctx, ast.Store):
                self.binders.setdefault(n.id, []).append(n)
            elif isinstance(n.ctx, ast.Load):
                self.reads.append(n)
        self._fresh = fresh
        self.constants = {  # name -> its value, for names bound once, to a constant
            stmt.targets[0].id: ast.get_source_segment(source, stmt.value) for stmt in tree.body
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and len(self.binders.get(stmt.targets[0].id, ())) == 1
            and stmt.targets[0].id not in self.params and _constant(stmt.value)}

    def fresh(self, base: str) -> str:
        """A module-level name no local of the kernel shadows."""
        while True:
            name = self._fresh(base)
            if name not in self.names:
                return name

    def bound_outside(self, name: str, inside: set) -> bool:
        return name in self.params or any(id(n) not in inside
                                           for n in self.binders.get(name, ()))

    def outlined(self, loop, lines: list, first: int, last: int) -> tuple:
        """The `rt.parallel` line replacing a loop (lines[first:last + 1]), and the loop's
        function."""
        if not isinstance(loop.target, ast.Name) or len(loop.iter.args) != 1 \
                or loop.iter.keywords or loop.orelse:
            raise _Unsuitable("not `for name in numba.prange(n):`")
        var = loop.target.id
        inside = {id(n) for n in ast.walk(loop)}
        names_in = sorted((n for stmt in loop.body for n in ast.walk(stmt)
                           if isinstance(n, ast.Name)), key=lambda n: (n.lineno, n.col_offset))
        bound_in = {n.id for n in names_in if isinstance(n.ctx, ast.Store)} | {var}
        read_elsewhere = {n.id for n in self.reads if id(n) not in inside}
        if any(name in read_elsewhere and not self.bound_outside(name, inside)
               for name in bound_in):
            raise _Unsuitable("the loop binds a name read after it")
        taken, constants = self._reads(names_in, var, inside)
        name = self.fresh(f"{var}_loop")
        head = lines[first]
        indent = head[:len(head) - len(head.lstrip())]
        count = ast.get_source_segment(self.source, loop.iter.args[0])
        packed = ", ".join(taken) + ("," if len(taken) == 1 else "")
        call = f"{indent}rt.parallel({name}, {count}, ({packed})){_comment(head)}"
        used = {n.id for n in names_in} | {var}
        local = Namer(used)  # (the loop function's own new names)
        start, stop = local.fresh(f"{var}_start"), local.fresh(f"{var}_stop")
        body = lines[first + 1:last + 1]
        if var not in bound_in - {var} and any(
                n.id == var for stmt in loop.body for n in _indices(stmt)):
            unsigned = local.fresh(f"{var}_at")
            body = _indexing_by(unsigned, var, loop, lines)[first + 1:last + 1]
            body.insert(0, f"{indent}    {unsigned} = np.uintp({var})  {UNSIGNED_WHY}")
        function = [DECORATOR, f"def {name}({', '.join([start, stop] + taken)}):"] + \
            [f"    {c} = {self.constants[c]}" for c in constants] + \
            [f"    for {var} in range({start}, {stop}):{_comment(head)}"] + \
            ["    " + line[len(indent):].replace(PRANGE + "(", "range(") for line in body]
        return call, function

    def _reads(self, names_in: list, var: str, inside: set) -> tuple:
        """(the names the loop's body reads that the kernel binds, in the order it first reads
        them: the function's parameters; those of them bound to a constant, which the function
        computes again)."""
        taken, constants = [], []
        for n in names_in:
            if not isinstance(n.ctx, ast.Load) or n.id == var or n.id in taken \
                    or n.id in constants or not self.bound_outside(n.id, inside):
                continue
            (constants if n.id in self.constants else taken).append(n.id)
        return taken, constants


def _indices(stmt):
    """The names that are an array index themselves (`x[i]`, the i of `out[i, j]`)."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.Subscript):
            index = node.slice
            for part in index.elts if isinstance(index, ast.Tuple) else [index]:
                if isinstance(part, ast.Name):
                    yield part


def _indexing_by(unsigned: str, var: str, loop, lines: list) -> list:
    """`lines` with the loop's indices that are `var` itself written `unsigned`."""
    edits: dict = {}
    for stmt in loop.body:
        for n in _indices(stmt):
            if n.id == var:
                edits.setdefault(n.lineno - 1, []).append((n.col_offset, n.end_col_offset))
    out = list(lines)
    for k, spans in edits.items():
        text = out[k].encode()  # (the parser's offsets count bytes)
        for begin, end in sorted(spans, reverse=True):
            text = text[:begin] + unsigned.encode() + text[end:]
        out[k] = text.decode()
    return out


def _constant(node) -> bool:
    """Whether an expression is a number written out (`3`, `-0.5`, `np.float32(0.01)`): a
    body computes it again rather than take it as an argument, so that LLVM sees its value
    (a pinned size, `pos_dim1 = 3`, unrolls the loops over it)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, bool))
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, ast.Call):
        return ast.unparse(node.func).startswith("np.") and not node.keywords \
            and len(node.args) == 1 and _constant(node.args[0])
    return False


def _comment(line: str) -> str:
    """The line's trailing `  # ...` comment, if any (generated lines hold no '#' in
    strings)."""
    at = line.find("  #")
    return line[at:] if at >= 0 else ""
