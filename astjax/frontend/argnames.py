"""Names for the array leaves of a function's arguments, as generated code shows them.

A leaf is named by its parameter and its path inside the argument's pytree (`params_w1`,
`state_0`); where the function's body unpacks a tuple argument at its top level
(`w, b = params`), the leaves take the names the user unpacked them to (`w`, `b`), so that
the generated function, its gradient (`w_bar`) and `make_jaxpr` read as the user's code does.
"""
import os

import libcst as cst

from ..errors import AstjaxError
from ..tree_util import leaf_paths
from .source import function_source


def leaf_names(fn, names: list, values: list) -> list:
    """A name per leaf of `values` (the arguments bound to parameters `names`, in order)."""
    unpacked = _unpacked(fn)
    paths = leaf_paths(tuple(values))
    out = []
    for path in paths:
        head, _, rest = path.partition("_")
        name = names[int(head)]
        out.append(_named(name, rest, unpacked.get(name)))
    return out


def _named(param: str, rest: str, structure) -> str:
    """The leaf at path `rest` of parameter `param`, unpacked as `structure` (or None)."""
    parts = rest.split("_") if rest else []
    for k, part in enumerate(parts):
        if not isinstance(structure, tuple) or not part.isdigit() or int(part) >= len(structure):
            break
        structure = structure[int(part)]
        if isinstance(structure, str):
            return "_".join([structure] + parts[k + 1:])
    return "_".join([param] + parts)


def _unpacked(fn) -> dict:
    """{parameter: nested tuple of names} for each top-level `a, (b, c) = param` of fn's body
    that comes before the parameter is rebound."""
    node = _definition(fn)
    if node is None or not isinstance(node.body, cst.IndentedBlock):
        return {}
    params = {p.name.value for p in node.params.params}
    found, rebound = {}, set()
    for stmt in node.body.body:
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.Assign):
                continue
            value = small.value
            if len(small.targets) == 1 and isinstance(value, cst.Name) and \
                    value.value in params and value.value not in rebound:
                structure = _structure(small.targets[0].target)
                if isinstance(structure, tuple):
                    found.setdefault(value.value, structure)
            rebound.update(t.target.value for t in small.targets if isinstance(t.target, cst.Name))
    return found


def _structure(target):
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, (cst.Tuple, cst.List)):
        inner = [_structure(e.value) for e in target.elements]
        return tuple(inner) if all(i is not None for i in inner) and \
            not any(isinstance(e, cst.StarredElement) for e in target.elements) else None
    return None


def _definition(fn):
    """The `def` of the user function beneath transformation wrappers (grad, vmap, jit keep
    the argument positions), or None."""
    for _ in range(16):
        inner = getattr(fn, "fun", None) or getattr(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    source = getattr(fn, "source", None)  # an interpretable UserFunction
    if source is None and (getattr(fn, "__name__", "<lambda>") == "<lambda>"
                           or not hasattr(fn, "__code__") or _ours(fn)):
        return None
    try:
        node = source.node if source is not None else function_source(fn).node
    except (AstjaxError, OSError):
        return None
    return node if isinstance(node, cst.FunctionDef) else None


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _ours(fn) -> bool:
    """astjax's own helpers (a Jacobian's rows, batching's wrappers) unpack no user
    arguments: their files are not parsed just to name leaves."""
    return os.path.abspath(fn.__code__.co_filename).startswith(_PACKAGE)
