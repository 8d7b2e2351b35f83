"""Early `return` -> one exit: the code after an `if` that returns moves into its other branch.

    if x > 0:                      if x > 0:
        return x                       _return_value = x
    y = x * 2              ->      else:
    return y                           y = x * 2
                                       _return_value = y
                                   return _return_value

Then every path assigns `_return_value`, so an `if` on an array value converts to a cond whose
branches both produce it. Runs only on functions that return from inside an `if`; a `return`
inside a loop is left for `loop_flags` (which reports it as unsupported for now).
"""
import libcst as cst
import libcst.matchers as m

from .provenance import ProvenanceTransformer, adopt

RETURN_VALUE = "_return_value"


def needs_rewrite(fn: cst.FunctionDef) -> bool:
    body = list(fn.body.body)
    returns = [r for r in m.findall(fn.body, m.Return()) if not _in_nested_scope(r, fn)]
    last_is_return = bool(body) and m.matches(body[-1], m.SimpleStatementLine(body=[m.Return()]))
    return len(returns) > (1 if last_is_return else 0)


def _in_nested_scope(node, fn) -> bool:
    return any(node in set(_descendants(d)) for d in m.findall(fn.body, m.FunctionDef()))


def _descendants(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


class SingleReturn(ProvenanceTransformer):
    """Rewrites every function it visits, nested ones first."""

    def leave_FunctionDef(self, original_node, updated_node):
        if not needs_rewrite(original_node):
            return updated_node
        statements, _ = self.block(list(updated_node.body.body))
        final = cst.parse_statement(f"return {RETURN_VALUE}")
        adopt(final, original_node, self.origin)
        return updated_node.with_changes(body=updated_node.body.with_changes(
            body=statements + [final]))

    def block(self, statements: list, follow: tuple = ()) -> tuple:
        """(rewritten statements, whether every path returns); `follow` is the code that runs
        after these statements when they fall through, pushed into every such path."""
        out = []
        for i, stmt in enumerate(statements):
            if _is_return(stmt):
                out.append(self._assign_return(stmt))
                return out, True
            if m.matches(stmt, m.If()) and _contains_return(stmt):
                new_if, returns = self._if(stmt, tuple(statements[i + 1:]) + tuple(follow))
                out.append(new_if)
                return out, returns
            out.append(stmt)
        if follow:
            rest, returns = self.block(list(follow))
            return out + rest, returns
        return out, False

    def _if(self, node: cst.If, follow: tuple) -> tuple:
        body, body_returns = self.block(list(node.body.body), follow)
        orelse, else_returns = self.block(_else_statements(node.orelse), follow)
        new = node.with_changes(body=node.body.with_changes(body=body),
                                orelse=_else_clause(orelse, node))
        adopt(new, node, self.origin)
        return new, body_returns and else_returns

    def _assign_return(self, stmt: cst.SimpleStatementLine):
        ret = stmt.body[-1]
        value = ret.value if ret.value is not None else cst.Name("None")
        before = list(stmt.body[:-1])
        assign = cst.Assign([cst.AssignTarget(cst.Name(RETURN_VALUE))], value)
        new = stmt.with_changes(body=before + [assign])
        adopt(new, ret, self.origin)
        return new


def _is_return(stmt) -> bool:
    return m.matches(stmt, m.SimpleStatementLine()) and any(
        m.matches(s, m.Return()) for s in stmt.body)


def _contains_return(node) -> bool:
    return bool(m.findall(node, m.Return()))


def _else_statements(orelse) -> list:
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):
        return [orelse]
    return list(orelse.body.body)


def _else_clause(statements: list, node: cst.If):
    if not statements:
        return None
    return cst.Else(body=cst.IndentedBlock(body=statements))
