"""Static facts about a function body that control-flow conversion needs: which names a block
assigns, and which names are read outside a block (so a converted `if` or loop outputs exactly
the variables that are assigned in it and still needed after it)."""
import libcst as cst
import libcst.matchers as m
from libcst.metadata import ExpressionContext

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
           cst.DictComp, cst.GeneratorExp)


def assigned_names(nodes) -> list:
    """Names bound by these statements, in first-assignment order (nested scopes excluded)."""
    names: dict = {}
    for node in nodes:
        names.update(dict.fromkeys(_assigned_in(node)))
    return list(names)


def _assigned_in(node) -> tuple:
    """The names `node` binds, in order of first assignment. Memoised per node, children
    first, so nested blocks (an elif chain) are walked once however often they are asked."""
    found = _ASSIGNED.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    if isinstance(node, cst.FunctionDef):
        names = (node.name.value,)  # a def binds its name; its body is another scope
    elif isinstance(node, _SCOPES):
        names = ()
    else:
        own = _bound_by(node)
        merged = dict.fromkeys(own)
        for child in node.children:
            merged.update(dict.fromkeys(_assigned_in(child)))
        names = tuple(merged)
    if len(_ASSIGNED) > 500_000:
        _ASSIGNED.clear()
    _ASSIGNED[id(node)] = (node, names)
    return names


_ASSIGNED: dict = {}  # id(node) -> (node, the names it binds)


def _bound_by(node) -> list:
    """The names a node binds itself (its children aside)."""
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For,
                         cst.NamedExpr)):
        return _targets(node.target)
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return _targets(node.asname.name)
    return []


def _targets(target) -> list:
    if m.matches(target, m.Name()):
        return [target.value]
    if m.matches(target, m.Tuple() | m.List()):
        return [n for el in target.elements for n in _targets(el.value)]
    if m.matches(target, m.StarredElement()):
        return _targets(target.value)
    if m.matches(target, m.Subscript()):
        base = target.value
        while m.matches(base, m.Subscript()):
            base = base.value
        if m.matches(base, m.Name()):
            return [base.value]
    return []


def loaded_names(node, contexts: dict) -> dict:
    """name -> number of reads within `node` (by libcst's ExpressionContextProvider).

    Memoised per node, children first: asking it of a function and then of each nested `if`
    (an elif chain of n branches asks n times) walks the function once, not n times."""
    found = _LOADED.get(id(node))
    if found is not None and found[0] is node and found[1] is contexts:
        return found[2]
    counts: dict = {}
    if isinstance(node, cst.Name):
        if contexts.get(node) == ExpressionContext.LOAD:
            counts[node.value] = 1
    else:
        for child in node.children:
            for name, k in loaded_names(child, contexts).items():
                counts[name] = counts.get(name, 0) + k
    if len(_LOADED) > 500_000:
        _LOADED.clear()
    _LOADED[id(node)] = (node, contexts, counts)
    return counts


_LOADED: dict = {}  # id(node) -> (node, contexts, its loaded names)


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
