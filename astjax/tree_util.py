"""Pytrees: nested tuples, lists, dicts, namedtuples, None and registered classes, as in JAX.

Leaves are everything else (arrays, scalars). `tree_flatten` returns the leaves in a fixed order
(dict keys sorted) and a `PyTreeDef` that rebuilds the structure; treedefs compare and hash by
structure, which is what compiled-function caches key on.
"""
from typing import Any, Callable

_REGISTRY: dict = {}


class PyTreeDef:
    __slots__ = ("kind", "aux", "children", "_cached_key")

    def __init__(self, kind, aux, children: tuple):
        self.kind, self.aux, self.children = kind, aux, children
        self._cached_key = None

    @property
    def num_leaves(self) -> int:
        if self.kind is None:
            return 1
        return sum(c.num_leaves for c in self.children)

    def _key(self):
        if self._cached_key is None:  # treedefs are immutable: compute the key once
            self._cached_key = (self.kind, self.aux, tuple(c._key() for c in self.children))
        return self._cached_key

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self.kind is None:
            return "*"
        name = getattr(self.kind, "__name__", str(self.kind))
        return f"{name}({', '.join(map(repr, self.children))})"


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable):
    """flatten_func(x) -> (children, aux_data); unflatten_func(aux_data, children) -> x."""
    _REGISTRY[nodetype] = (flatten_func, unflatten_func)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))
register_pytree_node(type(None), lambda t: ((), None), lambda _, c: None)
register_pytree_node(dict, lambda d: (tuple(d[k] for k in sorted(d)), tuple(sorted(d))),
                     lambda keys, c: dict(zip(keys, c)))


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_functions(x):
    registered = _REGISTRY.get(type(x))  # a registered class wins, even a namedtuple (as JAX)
    if registered is not None:
        return registered
    if _is_namedtuple(x):
        return (lambda t: (tuple(t), None)), (lambda _, c, cls=type(x): cls(*c))
    return None


def tree_flatten(tree: Any, is_leaf: Callable = None):
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def _flatten(tree, leaves: list, is_leaf) -> PyTreeDef:
    functions = None if (is_leaf and is_leaf(tree)) else _node_functions(tree)
    if functions is None:
        leaves.append(tree)
        return PyTreeDef(None, None, ())
    children, aux = functions[0](tree)
    return PyTreeDef(type(tree), aux, tuple(_flatten(c, leaves, is_leaf) for c in children))


def tree_unflatten(treedef: PyTreeDef, leaves) -> Any:
    it = iter(leaves)
    out = _unflatten(treedef, it)
    return out


def _unflatten(treedef: PyTreeDef, it):
    if treedef.kind is None:
        return next(it)
    children = [_unflatten(c, it) for c in treedef.children]
    if treedef.kind in _REGISTRY:
        return _REGISTRY[treedef.kind][1](treedef.aux, children)
    return treedef.kind(*children)  # a namedtuple


def tree_leaves(tree: Any, is_leaf: Callable = None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable, tree: Any, *rest: Any, is_leaf: Callable = None) -> Any:
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef_leaves(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def treedef_leaves(treedef: PyTreeDef, tree: Any) -> list:
    """The leaves of `tree`, which must have the structure `treedef` (leaves may be subtrees)."""
    out = []
    _leaves_along(treedef, tree, out)
    return out


def _leaves_along(treedef, tree, out):
    if treedef.kind is None:
        out.append(tree)
        return
    functions = _node_functions(tree)
    if functions is None or type(tree) is not treedef.kind:
        raise ValueError(f"tree structure mismatch: expected {treedef}, got {type(tree).__name__}")
    children, _ = functions[0](tree)
    if len(children) != len(treedef.children):
        raise ValueError(f"tree structure mismatch: expected {treedef}")
    for c, t in zip(children, treedef.children):
        _leaves_along(t, c, out)


def tree_all(tree: Any) -> bool:
    return all(tree_leaves(tree))


def tree_reduce(f: Callable, tree: Any, *initial) -> Any:
    import functools
    return functools.reduce(f, tree_leaves(tree), *initial)


def leaf_paths(tree: Any) -> list:
    """A readable name suffix for each leaf (`['w1']` -> 'w1', tuple element 0 -> '0')."""
    paths = []
    _paths(tree, "", paths)
    return paths


def _paths(tree, prefix, out):
    functions = _node_functions(tree)
    if functions is None:
        out.append(prefix)
        return
    children, aux = functions[0](tree)
    if isinstance(tree, dict):
        names = [str(k) for k in aux]
    elif _is_namedtuple(tree) and type(tree) not in _REGISTRY:
        names = list(type(tree)._fields)
    else:
        names = [str(i) for i in range(len(children))]
    for name, child in zip(names, children):
        _paths(child, f"{prefix}_{name}" if prefix else name, out)


