"""Static facts about a function body that control-flow conversion needs: which names a block
assigns, and which names are read outside a block (so a converted `if` or loop outputs exactly
the variables that are assigned in it and still needed after it)."""
import libcst as cst
import libcst.matchers as m
from libcst.metadata import ExpressionContext

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
           cst.DictComp, cst.GeneratorExp)


class _Assigned(cst.CSTVisitor):
    def __init__(self):
        self.names: list = []

    def _add(self, name: str):
        if name not in self.names:
            self.names.append(name)

    def visit_FunctionDef(self, node):
        self._add(node.name.value)
        return False

    def visit_Lambda(self, node):
        return False

    def visit_ListComp(self, node):
        return False

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_AssignTarget(self, node):
        self._targets(node.target)

    def visit_AugAssign(self, node):
        self._targets(node.target)

    def visit_AnnAssign(self, node):
        self._targets(node.target)

    def visit_For(self, node):
        self._targets(node.target)

    def visit_NamedExpr(self, node):
        self._targets(node.target)

    def _targets(self, target):
        if m.matches(target, m.Name()):
            self._add(target.value)
        elif m.matches(target, m.Tuple() | m.List()):
            for el in target.elements:
                self._targets(el.value)
        elif m.matches(target, m.StarredElement()):
            self._targets(target.value)
        elif m.matches(target, m.Subscript()):
            base = target.value
            while m.matches(base, m.Subscript()):
                base = base.value
            if m.matches(base, m.Name()):
                self._add(base.value)


def assigned_names(nodes) -> list:
    """Names bound by these statements, in first-assignment order (nested scopes excluded)."""
    visitor = _Assigned()
    for node in nodes:
        node.visit(visitor)
    return visitor.names


def loaded_names(node, contexts: dict) -> dict:
    """name -> number of reads within `node` (by libcst's ExpressionContextProvider)."""
    counts: dict = {}
    for name in m.findall(node, m.Name()):
        if contexts.get(name) == ExpressionContext.LOAD:
            counts[name.value] = counts.get(name.value, 0) + 1
    return counts


def read_outside(names, block, function, contexts: dict) -> set:
    """Those of `names` that `function` reads somewhere outside `block`."""
    total = loaded_names(function, contexts)
    inside = loaded_names(block, contexts)
    return {n for n in names if total.get(n, 0) > inside.get(n, 0)}


def first_read_after(name: str, block, function, contexts: dict, positions: dict):
    """The first read of `name` in `function` that follows `block` (outside it), by source
    position; None if there is none with a known position."""
    inside = {id(n) for n in m.findall(block, m.Name(value=name))}
    end = positions.get(block)
    reads = [n for n in m.findall(function, m.Name(value=name))
             if id(n) not in inside and contexts.get(n) == ExpressionContext.LOAD
             and positions.get(n) is not None]
    if end is not None:
        reads = [n for n in reads if (positions[n].start.line, positions[n].start.column)
                 >= (end.end.line, end.end.column)]
    return min(reads, key=lambda n: (positions[n].start.line, positions[n].start.column),
               default=None)


def last_assignment(name: str, block, contexts: dict, positions: dict):
    """The last place in `block` (by source position) that assigns `name`, or None."""
    stores = [n for n in m.findall(block, m.Name(value=name))
              if contexts.get(n) == ExpressionContext.STORE and positions.get(n) is not None]
    return max(stores, key=lambda n: (positions[n].start.line, positions[n].start.column),
               default=None)
