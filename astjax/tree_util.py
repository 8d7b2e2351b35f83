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

    @property
    def num_nodes(self) -> int:
        return 1 + sum(c.num_nodes for c in self.children)

    # (JAX's `children()` method is `treedef_children(treedef)` here: `children` is the
    # attribute a treedef keeps its child treedefs in)
    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree) -> list:
        return treedef_leaves(self, tree)

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




# ---------------------------------------------------------------- registering classes
def register_pytree_node_class(cls):
    """A class decorator: `cls.tree_flatten(self) -> (children, aux)` and the classmethod
    `cls.tree_unflatten(aux, children)` make its instances pytree nodes."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype=None, data_fields=None, meta_fields=None, drop_fields=()):
    """A dataclass whose `data_fields` are children and `meta_fields` static data; without
    them, a field with `metadata={"static": True}` (`jax.tree.static()`) is static and the
    others are children. Usable as a decorator, bare or with arguments."""
    if nodetype is None:
        return lambda cls: register_dataclass(cls, data_fields, meta_fields, drop_fields)
    if data_fields is None and meta_fields is None:
        import dataclasses
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields or ()), tuple(meta_fields or ())

    def flatten(x):
        return tuple(getattr(x, n) for n in data_fields), \
            tuple(getattr(x, n) for n in meta_fields)

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))
    register_pytree_node(nodetype, flatten, unflatten)
    return nodetype


def static(**field_kwargs):
    """A dataclass field that `register_dataclass` keeps as static data (`jax.tree.static`)."""
    import dataclasses
    metadata = dict(field_kwargs.pop("metadata", None) or {}, static=True)
    return dataclasses.field(metadata=metadata, **field_kwargs)


def register_static(cls):
    """A class whose instances are pytree nodes without children: each is static data (it
    must be hashable)."""
    register_pytree_node(cls, lambda x: ((), x), lambda x, _: x)
    return cls


class Partial:
    """`functools.partial` as a pytree: the function is static, the bound arguments are its
    children (so a Partial passes through jit, grad and tree_map like its arguments)."""

    def __init__(self, func, *args, **keywords):
        if isinstance(func, Partial):
            args, keywords = func.args + args, {**func.keywords, **keywords}
            func = func.func
        self.func, self.args, self.keywords = func, tuple(args), dict(keywords)

    def __call__(self, *args, **keywords):
        return self.func(*self.args, *args, **{**self.keywords, **keywords})

    def __repr__(self):
        return f"Partial({self.func!r}, {self.args!r}, {self.keywords!r})"


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# ---------------------------------------------------------------- key paths
class DictKey:
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __str__(self):
        return f"[{self.key!r}]"

    def __repr__(self):
        return f"DictKey(key={self.key!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other.key == self.key

    def __hash__(self):
        return hash((type(self), self.key))


class SequenceKey(DictKey):
    __slots__ = ()

    @property
    def idx(self):
        return self.key

    def __str__(self):
        return f"[{self.key}]"

    def __repr__(self):
        return f"SequenceKey(idx={self.key!r})"


class GetAttrKey(DictKey):
    __slots__ = ()

    @property
    def name(self):
        return self.key

    def __str__(self):
        return f".{self.key}"

    def __repr__(self):
        return f"GetAttrKey(name={self.key!r})"


class FlattenedIndexKey(SequenceKey):
    __slots__ = ()

    def __repr__(self):
        return f"FlattenedIndexKey(key={self.key!r})"


def keystr(path, *, simple: bool = False, separator: str = "/") -> str:
    """A key path as text: `['w'][0].b` (with `simple`, `w/0/b`)."""
    if simple:
        return separator.join(str(k.key) for k in path)
    return "".join(str(k) for k in path)


_KEYED: dict = {}  # type -> flatten_with_keys (register_pytree_with_keys)


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable, flatten_func: Callable = None):
    """A node type whose children come with their keys: flatten_with_keys(x) ->
    ([(key, child)], aux_data)."""
    def flatten(x):
        pairs, aux = flatten_with_keys(x)
        return tuple(child for _, child in pairs), aux
    register_pytree_node(nodetype, flatten_func or flatten, unflatten_func)
    _KEYED[nodetype] = flatten_with_keys


def _child_keys(tree, children) -> list:
    if type(tree) in _KEYED:
        return [key for key, _ in _KEYED[type(tree)](tree)[0]]
    if isinstance(tree, dict):
        return [DictKey(k) for k in sorted(tree)]
    if _is_namedtuple(tree) and type(tree) not in _REGISTRY:
        return [GetAttrKey(n) for n in type(tree)._fields]
    if isinstance(tree, (tuple, list)):
        return [SequenceKey(i) for i in range(len(children))]
    return [FlattenedIndexKey(i) for i in range(len(children))]


def register_pytree_with_keys_class(cls):
    """A class decorator: `cls.tree_flatten_with_keys(self) -> ([(key, child)], aux)` and the
    classmethod `cls.tree_unflatten(aux, children)` (`tree_flatten` too, if it has one)."""
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                              getattr(cls, "tree_flatten", None))
    return cls


def flatten_one_level_with_keys(tree):
    """([(key, child)], aux data) of a pytree node (a ValueError for a leaf)."""
    children, aux = flatten_one_level(tree)
    return list(zip(_child_keys(tree, children), children)), aux


def is_tree_node(typ: type) -> bool:
    """Whether `typ` is a pytree node type: tuple, list, dict, None's, a namedtuple or a
    registered class."""
    return typ in (tuple, list, dict, type(None)) or typ in _REGISTRY or \
        (isinstance(typ, type) and issubclass(typ, tuple) and hasattr(typ, "_fields"))


KeyEntry = Any  # (JAX's type names for annotations: a key, and a path of them)
KeyPath = tuple


def tree_flatten_with_path(tree: Any, is_leaf: Callable = None):
    """([(key path, leaf)], treedef)."""
    pairs: list = []
    _with_paths(tree, (), pairs, is_leaf)
    return pairs, tree_structure(tree, is_leaf)


def _with_paths(tree, path: tuple, out: list, is_leaf) -> None:
    functions = None if (is_leaf and is_leaf(tree)) else _node_functions(tree)
    if functions is None:
        out.append((path, tree))
        return
    children, _ = functions[0](tree)
    for key, child in zip(_child_keys(tree, children), children):
        _with_paths(child, path + (key,), out, is_leaf)


def tree_leaves_with_path(tree: Any, is_leaf: Callable = None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable, tree: Any, *rest: Any, is_leaf: Callable = None) -> Any:
    """f(key path, leaf, *the other trees' leaves) for each leaf."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [treedef_leaves(treedef, r) for r in rest]
    return tree_unflatten(treedef, [f(path, leaf, *xs)
                                    for (path, leaf), *xs in zip(pairs, *others)])


# ---------------------------------------------------------------- treedefs and the rest
def treedef_children(treedef: PyTreeDef) -> list:
    return list(treedef.children)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    return treedef.kind is None


def treedef_tuple(treedefs) -> PyTreeDef:
    return PyTreeDef(tuple, None, tuple(treedefs))


def all_leaves(iterable, is_leaf: Callable = None) -> bool:
    """Whether every element of `iterable` is a leaf."""
    return all(tree_structure(x, is_leaf).kind is None for x in iterable)


def flatten_one_level(tree):
    """(children, aux data) of a pytree node (a ValueError for a leaf)."""
    functions = _node_functions(tree)
    if functions is None:
        raise ValueError(f"can't flatten a leaf: {tree!r}")
    children, aux = functions[0](tree)
    return list(children), aux


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef, pytree_to_transpose):
    """A tree of structure outer(inner(leaves)) as inner(outer(leaves))."""
    if inner_treedef is None:
        inner_treedef = tree_structure(treedef_leaves(outer_treedef, pytree_to_transpose)[0])
    inners = [inner_treedef.flatten_up_to(sub)
              for sub in treedef_leaves(outer_treedef, pytree_to_transpose)]
    columns = [tree_unflatten(outer_treedef, list(col)) for col in zip(*inners)]
    return tree_unflatten(inner_treedef, columns)


def tree_broadcast(prefix_tree, full_tree, is_leaf: Callable = None):
    """`prefix_tree` with each of its leaves repeated over the subtree of `full_tree` there."""
    leaves, treedef = tree_flatten(prefix_tree, is_leaf)
    subtrees = treedef_leaves(treedef, full_tree)
    return tree_unflatten(treedef, [_repeated(leaf, sub) for leaf, sub in zip(leaves, subtrees)])


def _repeated(leaf, subtree):
    """`subtree` with `leaf` at each of its leaves."""
    return tree_map(lambda _: leaf, subtree)


def tree_reduce_associative(operation: Callable, tree: Any, *, identity=None,
                            is_leaf: Callable = None):
    """The leaves combined by an associative operation (as a balanced tree of calls)."""
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is None:
            raise ValueError("tree_reduce_associative of an empty tree needs identity=")
        return identity
    while len(leaves) > 1:
        pairs = [operation(a, b) for a, b in zip(leaves[::2], leaves[1::2])]
        leaves = pairs + ([leaves[-1]] if len(leaves) % 2 else [])
    return leaves[0]
