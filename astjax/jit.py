"""`jit`: specialise per abstract signature, compile with a backend, cache, never serve stale.

The cache key is the pytree structure of the dynamic arguments, each leaf's (shape, dtype,
weak type) and the values of static arguments. An entry also remembers every global and
closure value the specialisation read; if any has been rebound since, the entry is rebuilt on
the next call. Every (re)compilation is logged on the `astjax` logger with its reason.
"""
import functools
import logging
import types

import numpy as np

from .core.array import as_array
from .core.bind import current_builder
from .errors import StaticArgumentError, TransformError
from .frontend.interpreter import as_interpretable
from .frontend.specialize import dynamic_leaves, specialize, split_arguments

log = logging.getLogger("astjax")
log.addHandler(logging.NullHandler())

def _available_backends() -> tuple:
    from . import backends
    import importlib.util
    return tuple(b for b in backends.AVAILABLE
                 if importlib.util.find_spec(f"astjax.backends.{b}") is not None)


def default_backend() -> str:
    """$ASTJAX_BACKEND (numpy or numba), else the NumPy reference backend."""
    import os
    return os.environ.get("ASTJAX_BACKEND") or "numpy"


def jit(fun=None, *, static_argnums=(), static_argnames=(), backend=None):
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames, backend=backend)
    return JitFunction(fun, _as_tuple(static_argnums), _as_tuple(static_argnames), backend)


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class JitFunction:
    def __init__(self, fun, static_argnums, static_argnames, backend=None):
        backend = backend or default_backend()
        if backend not in _available_backends():
            raise TransformError(f"backend {backend!r} is not available",
                                 hint=f"choose one of {', '.join(_available_backends())}")
        self.fun, self.backend = fun, backend
        self.static_argnums, self.static_argnames = static_argnums, static_argnames
        self._cache: dict = {}
        self._fast: dict = {}  # (shape, dtype) per argument -> entry, for calls on plain arrays
        self._signature = None
        self.last = None
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        if current_builder() is not None:  # jit inside a function being compiled: inline it
            return as_interpretable(self.fun)(*args, **kwargs)
        if not kwargs and self._fast:  # repeat call on plain arrays: no binding, no pytrees
            entry = self._fast.get(_array_key(args))
            if entry is not None and entry.stale_reason() is None:
                self.last = entry
                return entry.run(args)
        entry, leaves = self.lookup(args, kwargs)
        if not kwargs and len(leaves) == len(args) and all(a is b for a, b in zip(leaves, args)):
            key = _array_key(args)  # every argument is itself one dynamic array leaf
            if key is not None:
                self._fast[key] = entry
        return entry.run(leaves)

    def lookup(self, args, kwargs):
        if self._signature is None:
            import inspect
            self._signature = inspect.signature(self.fun)
        bound, static = split_arguments(self.fun, args, kwargs, self.static_argnums,
                                        self.static_argnames, self._signature)
        leaves, tree = dynamic_leaves(bound, static)
        key = (tree, tuple(_leaf_signature(x) for x in leaves), _static_key(bound, static))
        entry = self._cache.get(key)
        reason = "first call with this signature" if entry is None else entry.stale_reason()
        if reason is not None:
            name = getattr(self.fun, "__qualname__", type(self.fun).__name__)
            log.info("compiling %s (%s): %s", name, _describe(key), reason)
            entry = self._cache[key] = Compiled(specialize(self.fun, bound, static), self.backend)
        self.last = entry
        return entry, leaves

    @property
    def source(self) -> str:
        if self.last is None:
            raise TransformError(f"{self.fun.__name__} has not been compiled yet",
                                 hint="call it once, or use astjax.make_source(f, *example_args)")
        return self.last.source


class Compiled:
    """One specialisation: its core form, the backend's callable, and what it depends on."""

    def __init__(self, spec, backend: str):
        from . import backends
        self.compiler = backends.get(backend)
        self.spec = spec
        self.origin = spec.func.loc.file if spec.func.loc else "?"
        self.call = self.compiler.compile_func(spec.func, self.origin)
        self.implicit_avals = [v.aval for v in spec.func.params[len(spec.func.params)
                                                                 - len(spec.implicit):]]

    @property
    def source(self) -> str:
        """The generated module (printed again on demand: only `show` needs it)."""
        return self.compiler.module_source(self.spec.func, self.origin)[0]

    def stale_reason(self):
        for namespace, name, value in self.spec.dependencies:
            current = _read(namespace, name)
            if not _same(current, value):
                return f"{name!r} changed since the last compilation"
        for (namespace, name), aval in zip(self.spec.implicit, self.implicit_avals):
            arr = np.asarray(_read(namespace, name))
            if arr.shape != aval.shape or arr.dtype != aval.dtype:
                return f"the array {name!r} changed shape or dtype"
        return None

    def run(self, leaves):
        inputs = list(leaves) + [_read(ns, name) for ns, name in self.spec.implicit]
        result = self.call(*[np.asarray(x) if not np.isscalar(x) else x for x in inputs])
        outs = result if isinstance(result, tuple) else (result,)
        if len(self.spec.func.outs) != 1:
            outs = result if isinstance(result, tuple) else (result,)
        flat, it = [], iter(outs)
        for i in range(len(self.spec.func.outs) + len(self.spec.out_static)):
            flat.append(self.spec.out_static[i] if i in self.spec.out_static
                        else as_array(next(it)))
        from .tree_util import tree_unflatten
        return tree_unflatten(self.spec.out_tree, flat)


def _read(namespace, name):
    value = namespace[name]
    return value.cell_contents if isinstance(value, types.CellType) else value


_SIMPLE = (bool, int, float, complex, str, bytes, type(None))


def _same(current, value) -> bool:
    if current is value:
        return True
    if isinstance(value, _SIMPLE) or isinstance(value, tuple):
        try:
            return type(current) is type(value) and bool(current == value)
        except Exception:
            return False
    return False


def _array_key(args):
    """(shape, dtype) of each argument when all are NumPy arrays (astjax's included), else None.

    Such a call has one dynamic leaf per argument, so this key decides the entry as the full
    key (tree, leaf signatures, static values) does."""
    try:
        return tuple((a.shape, a.dtype) for a in args if isinstance(a, np.ndarray)) \
            if all(isinstance(a, np.ndarray) for a in args) else None
    except TypeError:
        return None


def _leaf_signature(x):
    if isinstance(x, (bool, int, float, complex)):
        return (type(x),)
    arr = np.asarray(x) if not hasattr(x, "shape") or not hasattr(x, "dtype") else x
    return (tuple(arr.shape), np.dtype(arr.dtype).str)


def _static_key(bound, static) -> tuple:
    key = []
    for name in sorted(static):
        value = bound.arguments.get(name)
        try:
            hash(value)
        except TypeError:
            raise StaticArgumentError(
                f"static argument {name!r} is an unhashable {type(value).__name__}",
                hint="pass a tuple instead of a list, or a frozen dataclass") from None
        key.append((name, type(value), value))
    return tuple(key)


def _describe(key) -> str:
    tree, leaves, static = key
    parts = [f"{'x'.join(map(str, s[0])) or 'scalar'}:{np.dtype(s[1]).name}" if len(s) == 2
             else s[0].__name__ for s in leaves]
    statics = [f"{n}={v!r}" for n, _, v in static]
    return ", ".join(parts + statics)
