"""`break` and `continue` -> boolean flags, so loops on array values can be converted.

    while x < n:                     _break_3 = False
        if x > 5:                    while not _break_3 and (x < n):
            break            ->          if x > 5:
        x = x + 1                            _break_3 = True
                                         if not _break_3:
                                             x = x + 1

A `for` loop keeps iterating but its body is skipped once the flag is set; `continue` sets a flag
that is reset at the top of each iteration. The flags are plain Python bools when the condition
that sets them is static, so static loops specialise away exactly as before.
"""
import libcst as cst
import libcst.matchers as m

from .provenance import ProvenanceTransformer, adopt


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
            body = [_assign(flags["continue"], "False")] + body
        loop = self._with_body(loop, body, flags)
        before = [_assign(flags["break"], "False")] if "break" in flags else []
        after = self._orelse(loop, flags)
        loop = loop.with_changes(orelse=None) if after else loop
        nodes = before + [loop] + after
        for node in nodes:
            adopt(node, self.origin.get(original, original), self.origin)
        return cst.FlattenSentinel(nodes) if len(nodes) > 1 else loop

    def _with_body(self, loop, body, flags):
        if "break" in flags and isinstance(loop, cst.While):
            test = cst.parse_expression(f"not {flags['break']} and (x)")
            test = test.with_changes(right=loop.test.with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if not loop.test.lpar else loop.test)
            loop = loop.with_changes(test=test)
        elif "break" in flags:
            body = [_if_not(flags["break"], body)]
        return loop.with_changes(body=loop.body.with_changes(body=body))

    def _orelse(self, loop, flags) -> list:
        if loop.orelse is None or "break" not in flags:
            return []
        return [_if_not(flags["break"], list(loop.orelse.body.body))]

    def _line(self, node) -> int:
        root = self.origin.get(node, node)
        pos = self.positions.get(root)
        return pos.start.line if pos is not None else 0


def _jumps(body) -> list:
    """'break'/'continue' used by this loop (nested loops are already rewritten)."""
    kinds = []
    for node in _own_statements(body):
        if isinstance(node, cst.Break) and "break" not in kinds:
            kinds.append("break")
        if isinstance(node, cst.Continue) and "continue" not in kinds:
            kinds.append("continue")
    return kinds


def _own_statements(node):
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        yield current
        stack.extend(current.children)


def _sets_flag(node) -> bool:
    return any(isinstance(n, (cst.Break, cst.Continue)) for n in _own_statements(node)) or \
        isinstance(node, (cst.Break, cst.Continue))


def _guard(statements: list, flags: dict) -> list:
    out = []
    for i, stmt in enumerate(statements):
        jump = _jump_line(stmt)
        if jump is not None:
            out.append(_set_flag(stmt, flags[jump]))
            return out
        if isinstance(stmt, cst.If):
            stmt = _guard_if(stmt, flags)
        out.append(stmt)
        rest = statements[i + 1:]
        if rest and _sets_flag(statements[i]):
            out.append(_if_not(" or ".join(flags.values()), _guard(rest, flags)))
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


def _jump_line(stmt):
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    for small in stmt.body:
        if isinstance(small, cst.Break):
            return "break"
        if isinstance(small, cst.Continue):
            return "continue"
    return None


def _set_flag(stmt: cst.SimpleStatementLine, flag: str):
    body = []
    for small in stmt.body:
        if isinstance(small, (cst.Break, cst.Continue)):
            body.append(cst.Assign([cst.AssignTarget(cst.Name(flag))], cst.Name("True")))
            break
        body.append(small)
    return stmt.with_changes(body=body)


def _assign(name: str, value: str):
    return cst.parse_statement(f"{name} = {value}")


def _if_not(condition: str, body: list) -> cst.If:
    test = cst.parse_expression(f"not ({condition})" if " or " in condition else f"not {condition}")
    return cst.If(test=test, body=cst.IndentedBlock(body=body))
