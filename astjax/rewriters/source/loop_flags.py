"""`break`, `continue` and `return` inside loops -> boolean flags, so loops on array values can
be converted to lax loops.

    while x < n:                     _break_3 = False
        if x > 5:                    while not _break_3 and (x < n):
            break            ->          if x > 5:
        x = x + 1                            _break_3 = True
                                         if not _break_3:
                                             x = x + 1

A `return v` inside a loop stores `_return_value = v`, sets `_return_<line>` (which stops the
loop like a break) and the loop is followed by `if _return_<line>: return _return_value`, which
`single_return` then turns into one exit. Before such a loop `_return_value` holds a
placeholder, `__astjax_missing__`, that converted control flow replaces by zeros of the right
shape on the paths that have not returned. A `for` loop keeps iterating but skips its body once
a flag is set; `continue` sets a flag reset at the top of each iteration. The flags are plain
Python bools when the conditions that set them are static, so static loops specialise away.
"""
import libcst as cst

from .provenance import ProvenanceTransformer, adopt
from .single_return import RETURN_VALUE

MISSING = "__astjax_missing__"
STOPPING = ("break", "return")


class LoopFlags(ProvenanceTransformer):
    def __init__(self, origin: dict, positions):
        super().__init__(origin)
        self.positions = positions  # to name flags after the loop's line

    def leave_While(self, original_node, updated_node):
        return self._rewrite(original_node, updated_node)

    def leave_For(self, original_node, updated_node):
        return self._rewrite(original_node, updated_node)

    def _rewrite(self, original, loop):
        kinds = _jumps(loop.body)
        if not kinds:
            return loop
        line = self._line(original)
        flags = {k: f"_{k}_{line}" for k in kinds}
        body = _guard(list(loop.body.body), flags)
        if "continue" in flags:
            body = [_statement(f"{flags['continue']} = False")] + body
        stop = [flags[k] for k in STOPPING if k in flags]
        loop = self._with_body(loop, body, stop)
        nodes = [_statement(f"{f} = False") for f in stop]
        if "return" in flags:
            nodes.append(_statement(f"{RETURN_VALUE} = {MISSING}"))
        nodes.append(loop.with_changes(orelse=None) if stop else loop)
        if stop and loop.orelse is not None:
            nodes.append(_if_not(stop, list(loop.orelse.body.body)))
        if "return" in flags:
            nodes.append(cst.parse_statement(f"if {flags['return']}:\n    return {RETURN_VALUE}\n"))
        for node in nodes:
            adopt(node, self.origin.get(original, original), self.origin)
        return cst.FlattenSentinel(nodes) if len(nodes) > 1 else loop

    def _with_body(self, loop, body, stop: list):
        if stop and isinstance(loop, cst.While):
            test = cst.parse_expression(f"{_not(stop)} and (x)")
            inner = loop.test if loop.test.lpar else loop.test.with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            loop = loop.with_changes(test=test.with_changes(right=inner))
        elif stop:
            body = [_if_not(stop, body)]
        return loop.with_changes(body=loop.body.with_changes(body=body))

    def _line(self, node) -> int:
        root = self.origin.get(node, node)
        pos = self.positions.get(root)
        return pos.start.line if pos is not None else 0


_JUMPS = {cst.Break: "break", cst.Continue: "continue", cst.Return: "return"}


def _jumps(body) -> list:
    """The jumps ('break', 'continue', 'return') this loop's own body makes."""
    found = {_JUMPS[type(n)] for n in _own_statements(body) if type(n) in _JUMPS}
    return [k for k in ("break", "continue", "return") if k in found]


def _own_statements(node):
    """Descendants of node outside nested functions (nested loops are already rewritten)."""
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        yield current
        stack.extend(current.children)


def _jumps_in(node) -> bool:
    return type(node) in _JUMPS or any(type(n) in _JUMPS for n in _own_statements(node))


def _guard(statements: list, flags: dict) -> list:
    """Statements with each jump replaced by its flag and what follows a possible jump
    guarded by `if not (flags):`."""
    out = []
    for i, stmt in enumerate(statements):
        if _jump_of(stmt) is not None:
            out.append(_set_flag(stmt, flags))
            return out
        if isinstance(stmt, cst.If):
            stmt = _guard_if(stmt, flags)
        out.append(stmt)
        rest = statements[i + 1:]
        if rest and _jumps_in(statements[i]):
            out.append(_if_not(list(flags.values()), _guard(rest, flags)))
            return out
    return out


def _guard_if(node: cst.If, flags: dict) -> cst.If:
    body = node.body.with_changes(body=_guard(list(node.body.body), flags))
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        orelse = _guard_if(orelse, flags)
    elif isinstance(orelse, cst.Else):
        orelse = orelse.with_changes(body=orelse.body.with_changes(
            body=_guard(list(orelse.body.body), flags)))
    return node.with_changes(body=body, orelse=orelse)


def _jump_of(stmt):
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    return next((_JUMPS[type(s)] for s in stmt.body if type(s) in _JUMPS), None)


def _set_flag(stmt: cst.SimpleStatementLine, flags: dict):
    body = []
    for small in stmt.body:
        kind = _JUMPS.get(type(small))
        if kind == "return":
            value = small.value if small.value is not None else cst.Name("None")
            body.append(cst.Assign([cst.AssignTarget(cst.Name(RETURN_VALUE))], value))
        if kind is not None:
            body.append(cst.Assign([cst.AssignTarget(cst.Name(flags[kind]))], cst.Name("True")))
            break
        body.append(small)
    return stmt.with_changes(body=body)


def _statement(code: str):
    return cst.parse_statement(code)


def _not(flags: list) -> str:
    return f"not {flags[0]}" if len(flags) == 1 else f"not ({' or '.join(flags)})"


def _if_not(flags: list, body: list) -> cst.If:
    return cst.If(test=cst.parse_expression(_not(flags)), body=cst.IndentedBlock(body=body))
