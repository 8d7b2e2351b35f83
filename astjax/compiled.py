"""`jit`: specialise per abstract signature, compile with a backend, cache, never serve stale.

(This module is `compiled`, not `jit`, so that importing it never hides the function
`astjax.jit` behind a module of the same name.)

The cache key is the pytree structure of the dynamic arguments, each leaf's (shape, dtype,
weak type) and the values of static arguments. An entry also remembers every global and
closure value the specialisation read; if any has been rebound since, the entry is rebuilt on
the next call. Every (re)compilation is logged on the `astjax` logger with its reason. A
specialisation an earlier process made is read from disk when nothing it read has changed
(`frontend/disk_cache.py`): the front end does not run again.
"""
import contextlib
import functools
import gc
import inspect
import logging
import os
import threading
import types

import numpy as np

from . import config
from .core.array import as_array
from .core.avals import canonical_value
from .core.bind import current_builder
from .core.concretize import concretize, size_env, size_sources, sizes_of
from .core.depth import deep_recursion
from .core.dims import Facts, recording
from .core.prims.callback import missing_derivative
from .errors import StaticArgumentError, TransformError
from .frontend import disk_cache
from .frontend.interpreter import as_interpretable
from .frontend.specialize import dynamic_leaves, function_name, specialize, split_arguments
from .identity import identity

log = logging.getLogger("astjax")
log.addHandler(logging.NullHandler())

def _available_backends() -> tuple:
    from . import backends
    import importlib.util
    return tuple(b for b in backends.AVAILABLE
                 if importlib.util.find_spec(f"astjax.backends.{b}") is not None)


def default_backend() -> str:
    """$ASTJAX_BACKEND (auto, numpy, numba, xla or cuda), else "auto": the quickest tier that
    is ready, then the fastest (astjax/backends/auto)."""
    return os.environ.get("ASTJAX_BACKEND") or "auto"


def named_call(fun, *, name=None):
    """fun itself: JAX names the call in profiles; astjax's generated code names its lines."""
    return fun


def jit(fun=None, *, static_argnums=(), static_argnames=(), backend=None,
        donate_argnums=None, donate_argnames=None, keep_unused=False, device=None,
        inline=False, in_shardings=None, out_shardings=None, compiler_options=None,
        abstracted_axes=None):
    """`fun` compiled per signature (see JitFunction). JAX's other options are accepted and
    change nothing here: donation only lets JAX reuse an argument's buffer (astjax never
    writes into arguments), and one CPU device leaves nothing to place or shard."""
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
        self._shared = None  # the entries of every jit of the same function (see _entries)
        self._signature = None
        self.last = None
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        if current_builder() is not None:  # jit inside a function being compiled: inline it
            return as_interpretable(self.fun)(*args, **kwargs)
        if config.read("jax_disable_jit") and not hasattr(self.fun, "abstract_call"):
            return self.fun(*args, **kwargs)  # Python runs it, on concrete arrays, line by line
        shared = self._shared or self._entries()
        if shared.x64 != config.x64_enabled():  # entries typed under the other flag
            shared.fast.clear()
            shared.x64 = config.x64_enabled()
        plain = None if kwargs else _plain_call(args)
        if plain is not None and shared.fast:  # a repeat call on arrays in tuples, lists and
            found = shared.fast.get(plain[0])  # dicts: no binding, no general pytree code
            if found is not None:
                entry, call = found
                if entry.unchanged():
                    self.last = entry
                    return entry.finish(call(*plain[1]))
        entry, leaves = self.lookup(args, kwargs)
        if plain is not None and len(leaves) == len(plain[1]) and not entry.spec.implicit \
                and all(a is b for a, b in zip(leaves, plain[1])):
            # the leaves are the arguments' arrays as they are (none static, none converted);
            # the shapes in the key fix the backend's callable too
            shared.fast[plain[0]] = (entry, entry.callable_for(leaves))
        return entry.run(leaves)

    def _entries(self) -> "SharedEntries":
        """The compiled entries of this function, shared with every jit of the same function
        (identity.py), so that a `jit(f)` or `grad(f)` built again finds them."""
        try:
            key = (identity(self.fun), self.static_argnums, self.static_argnames, self.backend)
            hash(key)
        except TypeError:  # a parameter with no stable key: this wrapper's own entries
            self._shared = SharedEntries()
            return self._shared
        with _SHARED_LOCK:
            shared = _SHARED.pop(key, None) or SharedEntries()
            _SHARED[key] = shared  # most recently used last
            while len(_SHARED) > _SHARED_LIMIT:
                _SHARED.pop(next(iter(_SHARED)))
        self._shared = shared
        return shared

    def trace(self, *args, **kwargs):
        """JAX's ahead-of-time API: the signature of these arguments specialised now."""
        from .lowered import Traced
        return Traced(self, args, kwargs)

    def lower(self, *args, **kwargs):
        return self.trace(*args, **kwargs).lower()

    def lookup(self, args, kwargs):
        if self._signature is None:
            self._signature = inspect.signature(self.fun)
        bound, static = split_arguments(self.fun, args, kwargs, self.static_argnums,
                                        self.static_argnames, self._signature)
        leaves, tree = dynamic_leaves(bound, static)
        leaves = _canonical(leaves)  # 64-bit arguments become 32-bit ones, as in JAX
        symbolic = shape_polymorphism()
        key = (tree, tuple(_leaf_signature(x, symbolic) for x in leaves),
               _static_key(bound, static), config.x64_enabled())
        shared = self._shared or self._entries()
        with shared.lock:
            entries = shared.cache.setdefault(key, [])
            entry, reason = _choose(entries, leaves)
            if reason is not None:
                name = getattr(self.fun, "__qualname__", type(self.fun).__name__)
                log.info("compiling %s (%s): %s", name, _describe(key, leaves), reason)
                _freeze_once()
                from astjax.backends.auto.background import paused
                with paused():  # (background kernel compiles stop while the front end runs)
                    entry = Compiled(self.fun, bound, static, self.backend, symbolic)
                entries.insert(0, entry)
        self.last = entry
        return entry, leaves

    @property
    def source(self) -> str:
        if self.last is None:
            raise TransformError(f"{function_name(self.fun)} has not been compiled yet",
                                 hint="call it once, or use astjax.make_source(f, *example_args)")
        return self.last.source


def _freeze_once() -> None:
    """Before the process's first compile, what it has built so far (modules, the program's
    own data: ~150,000 objects with JAX, NumPy and libcst loaded) is moved out of the garbage
    collector's reach: they live as long as the process, and a full collection that scanned
    them all took 35-110 ms, landing on whichever call allocated at the wrong moment (a warm
    first call that should take 30 ms)."""
    global _FROZEN
    if not _FROZEN:
        _FROZEN = True
        gc.freeze()


_FROZEN = False


class SharedEntries:
    """The compiled entries of one function identity: by full signature key (`cache`), and by
    (shape, dtype) per argument for calls on plain arrays (`fast`)."""

    def __init__(self):
        self.cache: dict = {}
        self.fast: dict = {}
        self.x64 = config.x64_enabled()  # the flag `fast`'s entries were typed under
        self.lock = threading.RLock()  # one thread compiles a signature; the others wait


# Function identities seen lately, most recent last: a program making a new closure per call
# of an outer function (new cells every time) must not grow this without bound.
_SHARED: dict = {}
_SHARED_LIMIT = 256
_SHARED_LOCK = threading.Lock()


def clear_caches() -> None:
    """Forget every compiled entry (JAX's `jax.clear_caches`): the next call of any jitted or
    transformed function compiles again. Files in the on-disk cache stay."""
    with _SHARED_LOCK:
        for shared in _SHARED.values():
            with shared.lock:
                shared.cache.clear()
                shared.fast.clear()
        _SHARED.clear()


class Compiled:
    """One specialisation: its core form, the backend's callable, and what it depends on.

    With symbolic sizes, a backend whose generated code reads sizes from its arguments
    (`SYMBOLIC_SIZES`) compiles once; for the others the core form is instantiated per
    concrete sizes (`concretize`) without running the front end again.
    """

    def __init__(self, fun, bound, static, backend: str, symbolic: bool = False):
        from . import backends
        self.compiler = backends.get(backend)
        self._unrun = True
        self.symbolic_backend = getattr(self.compiler, "SYMBOLIC_SIZES", False)
        self.facts = Facts(where=_current_line)
        leaves, tree = dynamic_leaves(bound, static)
        leaves = _canonical(leaves)
        key = _disk_key(fun, leaves, tree, bound, static, symbolic)
        self.spec = (self._from_disk(key, fun, leaves) if key else None) or \
            self._from_source(fun, bound, static, symbolic, key)
        spec = self.spec
        self.origin = spec.func.loc.file if spec.func.loc else "?"
        self.sizes = size_sources(spec.func)
        self._calls: dict = {}  # concrete sizes -> the backend's callable
        self.call = None  # the last of them used
        self.implicit_avals = [v.aval for v in spec.func.params[len(spec.func.params)
                                                                 - len(spec.implicit):]]

    def _from_disk(self, key, fun, leaves):
        """The front end's result for this call, from disk (None: compute it), with the size
        facts it recorded, and this call's sizes as its witnesses."""
        loaded = disk_cache.load(key, fun)
        if loaded is None:
            return None
        spec, self.facts.items = loaded[0], list(loaded[1])
        sources = size_sources(spec.func)
        if self._broken(leaves, sources) is not None:  # made for sizes of another class
            self.facts.items = []
            return None
        for (symbol, _, _), size in zip(sources, sizes_of(sources, leaves)):
            symbol.witness = int(size)  # (code generators choose by them: as if fresh)
        return spec

    def _from_source(self, fun, bound, static, symbolic, key):
        """The front end run on the function's source (and its result kept on disk)."""
        # (a backend that compiles in the background pauses it while the caller compiles)
        foreground = getattr(self.compiler, "foreground", contextlib.nullcontext)
        with foreground(), recording(self.facts), deep_recursion():  # what it asks of sizes
            spec = specialize(fun, bound, static, symbolic)
        missing_derivative(spec.func)  # (a host call's, differentiated: the user's error)
        if key:
            disk_cache.store(key, fun, spec, self.facts.items)
        return spec

    def broken_fact(self, leaves):
        """The first recorded fact these arguments' sizes break (None: this entry serves)."""
        return self._broken(leaves, self.sizes)

    def _broken(self, leaves, sources):
        if not self.facts.items:
            return None
        env = size_env(sources, sizes_of(sources, leaves))
        return next((f for f in self.facts.items if not f.check(env)), None)

    def callable_for(self, leaves):
        """The backend's compiled function for these arguments' sizes."""
        key = () if self.symbolic_backend else sizes_of(self.sizes, leaves)
        call = self._calls.get(key)
        if call is None:
            with recording(self.facts), deep_recursion():  # (a backend may ask of sizes)
                call = self._calls[key] = self.compiler.compile_func(self._func(key),
                                                                     self.origin)
        self.call = call
        return call

    def _func(self, key):
        if self.symbolic_backend:
            return self.spec.func
        return concretize(self.spec.func, size_env(self.sizes, key))

    @property
    def source(self) -> str:
        """The generated module (printed again on demand: only `show` needs it)."""
        key = next(iter(self._calls), ()) if not self.symbolic_backend else ()
        if not self.symbolic_backend and not key:
            key = tuple(sym.witness for sym, _, _ in self.sizes)
        with recording(self.facts):  # the same facts decide the same code
            text = self.compiler.module_source(self._func(key), self.origin)[0]
        report = getattr(getattr(self, "call", None), "report", None)  # which tier runs it
        if report is None:
            return text
        header, rest = text.split("\n", 1)
        return f"{header}\n{report()}\n{rest}"

    def unchanged(self) -> bool:
        """Whether everything the function read when compiled is still the same object: the
        common case, checked by identity alone (`stale_reason` compares values)."""
        for namespace, name, value in self.spec.dependencies:
            current = namespace.get(name)
            if current is not value and not (type(current) is types.CellType
                                             and current.cell_contents is value):
                return self.stale_reason() is None
        return True

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
        if self._unrun:  # the signature's first call: background kernel compiles stop meanwhile
            self._unrun = False
            from astjax.backends.auto.background import paused
            with paused():
                return self._run(leaves)
        return self._run(leaves)

    def _run(self, leaves):
        inputs = list(leaves) + [_read(ns, name) for ns, name in self.spec.implicit]
        call = self.callable_for(leaves)
        return self.finish(call(*[np.asarray(x) if not np.isscalar(x) else x for x in inputs]))

    def finish(self, result):
        """The backend's result as the user's function returns it: arrays as astjax Arrays,
        static outputs put back, the output pytree rebuilt."""
        if self.spec.out_tree.kind is None and not self.spec.out_static:
            return as_array(result)  # one array: the common case, kept short
        outs = result if isinstance(result, tuple) else (result,)
        flat, it = [], iter(outs)
        for i in range(len(self.spec.func.outs) + len(self.spec.out_static)):
            flat.append(self.spec.out_static[i] if i in self.spec.out_static
                        else as_array(next(it)))
        from .tree_util import tree_unflatten
        return tree_unflatten(self.spec.out_tree, flat)


def _read(namespace, name):
    value = namespace[name]
    return canonical_value(value.cell_contents if isinstance(value, types.CellType) else value)


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


def _plain_call(args):
    """(key, leaves) when the arguments are NumPy arrays (astjax's included) or scalars
    (NumPy's, or Python's bool, int and float), bare or in tuples, lists,
    string-or-number-keyed dicts and None, else None.  The key holds the containers' types
    and keys, each array's shape and dtype, each NumPy scalar's dtype and each Python
    scalar's type, so it decides the entry as the full key (tree, leaf signatures, static
    values) does; the leaves are the arrays and scalars in tree_flatten's order."""
    key = []
    for a in args:  # (the common case, kept short: arrays only)
        if not isinstance(a, np.ndarray):
            break
        key.append((a.shape, a.dtype))
    else:
        return tuple(key), args
    leaves: list = []
    try:
        return ("tree",) + tuple(_plain_node(a, leaves) for a in args), leaves
    except (_NotPlain, TypeError):  # (TypeError: dict keys that do not sort)
        return None


class _NotPlain(Exception):
    pass


_PLAIN_SCALARS = (bool, int, float)  # (weakly typed: the type alone decides the entry)


def _plain_node(x, leaves: list):
    if isinstance(x, np.ndarray):
        leaves.append(x)
        return x.shape, x.dtype
    kind = type(x)
    if kind in _PLAIN_SCALARS or isinstance(x, np.generic):
        # (a step size, a count: through the general path a NumPy scalar took 16.5 us a call)
        leaves.append(x)
        return ("scalar", kind, getattr(x, "dtype", None))
    if kind is tuple or kind is list:
        return kind, tuple(_plain_node(v, leaves) for v in x)
    if kind is dict:
        names = sorted(x)
        if not all(type(k) in (str, int) for k in names):
            raise _NotPlain
        return dict, tuple(names), tuple(_plain_node(x[k], leaves) for k in names)
    if x is None:
        return None
    raise _NotPlain


def _current_line():
    builder = current_builder()
    return builder.loc if builder is not None else None


def shape_polymorphism() -> bool:
    """Whether sizes are symbolic (the default; ASTJAX_SHAPE_POLYMORPHISM=0 turns it off)."""
    return os.environ.get("ASTJAX_SHAPE_POLYMORPHISM", "1") != "0"


def _choose(entries: list, leaves) -> tuple:
    """(entry serving these arguments, None) or (None, why a new specialisation is needed)."""
    if not entries:
        return None, "first call with this signature"
    broken = None
    for entry in entries:
        fact = entry.broken_fact(leaves)
        if fact is None:
            stale = entry.stale_reason()
            if stale is None:
                return entry, None
            entries.remove(entry)
            return None, stale
        broken = broken or fact
    where = f" ({broken.where.file.rsplit('/', 1)[-1]}:{broken.where.line})" if broken.where else ""
    return None, f"the sizes break `{broken}`{where}, a fact the compiled code relies on"


def _leaf_signature(x, symbolic: bool = False):
    """What of an argument selects its specialisation: with symbolic sizes the rank, dtype
    and which sizes are 0 or 1; else the shape and dtype."""
    if isinstance(x, (bool, int, float, complex)):
        return (type(x),)
    arr = np.asarray(x) if not hasattr(x, "shape") or not hasattr(x, "dtype") else x
    shape = tuple(d if d < 2 else -1 for d in arr.shape) if symbolic else tuple(arr.shape)
    return (shape, np.dtype(arr.dtype).str)


def _disk_key(fun, leaves, tree, bound, static, symbolic: bool):
    """The front end's entry on disk for this call (None: it is not kept there)."""
    if os.environ.get("ASTJAX_FRONTEND_CACHE", "1") == "0":
        return None
    signature = tuple(_leaf_signature(x, symbolic) for x in leaves)
    statics = tuple((name, bound.arguments.get(name)) for name in sorted(static))
    return disk_cache.entry_key(fun, signature, tree, statics, config.x64_enabled(), symbolic)


def _canonical(leaves) -> list:
    """Arguments as jit sees them: 64-bit ones as 32-bit ones unless x64 is on."""
    return list(leaves) if config.x64_enabled() else [canonical_value(x) for x in leaves]


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


def _describe(key, leaves) -> str:
    tree, signatures, static = key[:3]
    parts = [f"{'x'.join(map(str, np.shape(x))) or 'scalar'}:{np.dtype(s[1]).name}" if len(s) == 2
             else s[0].__name__ for s, x in zip(signatures, leaves)]
    statics = [f"{n}={v!r}" for n, _, v in static]
    return ", ".join(parts + statics)


def _import_default_backend() -> None:
    """The default tiers' modules, imported with the API (as `import jax` imports its own)
    rather than inside a function's first call: 60-100 ms of it on the XLA tier."""
    from . import backends, preload
    if preload.xla_by_default():
        for name in ("auto", "xla", "numpy"):
            backends.get(name)


_import_default_backend()
