"""The front end's result (a specialisation's core form) on disk, so that a new process does
not parse and interpret an unchanged function again.

An entry is found by a digest of everything that could change it and can be named without
running the front end: astjax's own source, NumPy's and Python's versions, the function (its
file's text, its code, its defaults; for a transformation its kind and parameters too), the
arguments' structure, shapes and dtypes, the static arguments and the x64 flag. What the
front end read from outside the function while it ran (globals, closure cells, modules,
functions it called) is stored with the entry as (where to read it, what it was), and an
entry is used only when every one of them reads the same again: a module or a function by
its name and the text of its file, plain data by value. astjax's own functions (library
code runs as Python, so what it reads goes unrecorded) are described with what their
closure cells hold. A loaded entry's recorded size facts must hold for the call's sizes.

Anything that cannot be told apart that way (an object, a value in a closure cell of a
function other than the one compiled, an array held by an object) keeps the specialisation
out of the cache: it is computed in every process, as before. So is one whose core form
cannot be pickled (a host callback holds a live Python function).
"""
import functools
import hashlib
import os
import pickle
import sys
import types

import numpy as np

from ..core.avals import canonical_value
from ..core.files import astjax_source_digest, cache_root, discard, write_atomic
from .resolve import is_user_function

_PLAIN = (bool, int, float, complex, str, bytes, type(None))
FORMAT = 2  # bump when what is pickled changes shape
LARGEST = 4096  # a container read with more items than this is not described item by item


class Unstable(Exception):
    """A value with no description that holds across processes."""


# ------------------------------------------------------------------ keys
def entry_key(fun, leaves_signature, tree, static_values, x64: bool, symbolic: bool):
    """The entry's file name (a digest), or None when `fun` or its arguments have no stable
    description."""
    try:
        parts = [astjax_source_digest(), np.__version__, sys.version, FORMAT, _described(fun),
                 repr(leaves_signature), pickle.dumps(tree, protocol=4).hex(),
                 describe(static_values), x64, symbolic]
    except (Unstable, pickle.PicklingError, TypeError, AttributeError, ValueError):
        return None
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def _described(fun) -> str:
    """The function to compile, as text that names what it is made of."""
    if isinstance(fun, types.FunctionType):
        return repr(("function", _function(fun), fun.__globals__.get("__name__"),
                     describe(fun.__kwdefaults__)))
    if isinstance(fun, types.MethodType):
        raise Unstable("a bound method's object")
    if isinstance(fun, functools.partial):
        return repr(("partial", _described(fun.func), describe(fun.args), describe(fun.keywords)))
    parameters = getattr(fun, "identity_parameters", None)
    if parameters is not None:
        kind = type(fun)
        return repr((kind.__module__, kind.__qualname__, _described(fun.fun),
                     describe(parameters())))
    raise Unstable(f"a {type(fun).__name__}")


def innermost(fun):
    """The user function beneath transformations and partials (its closure cells are the
    ones a dependency may name)."""
    for _ in range(64):
        if isinstance(fun, types.FunctionType):
            return fun
        fun = getattr(fun, "func", None) or getattr(fun, "fun", None)
    return None


def _code(code) -> str:
    """Everything of a code object that its behaviour and its positions depend on."""
    consts = tuple(_code(c) if isinstance(c, types.CodeType) else describe(c)
                   for c in code.co_consts)
    return hashlib.sha256(repr((code.co_code, consts, code.co_names, code.co_varnames,
                                code.co_freevars, code.co_cellvars, code.co_qualname,
                                code.co_firstlineno, code.co_linetable,
                                code.co_filename)).encode()).hexdigest()


def describe(value) -> str:
    """A value as text that holds across processes: plain data by value; modules, functions
    and classes by name (and a user file's text)."""
    if isinstance(value, _PLAIN):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, (tuple, list, dict)) and len(value) > LARGEST:
        raise Unstable(f"a {type(value).__name__} of {len(value)} items")
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({','.join(describe(v) for v in value)})"
    if isinstance(value, dict):
        return "dict(" + ",".join(f"{describe(k)}={describe(v)}" for k, v in value.items()) + ")"
    if isinstance(value, np.dtype):
        return f"dtype:{value.str}"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}:{_file(getattr(value, '__file__', None))}"
    if isinstance(value, types.FunctionType):
        return f"function:{_function(value)}"
    return _named(value)


def _function(fn) -> str:
    """A function's code, file and defaults; and for library code, which runs as Python
    (so what it reads goes unrecorded), what its closure cells hold. (A user function is
    interpreted: the cells it reads are recorded and checked one by one.)"""
    cells = len(fn.__closure__ or ())
    if not is_user_function(fn):
        try:
            cells = tuple(describe(c.cell_contents) for c in fn.__closure__ or ())
        except ValueError:  # an empty cell
            raise Unstable(f"{fn.__qualname__} closes over an unbound name") from None
    return f"{_code(fn.__code__)}:{_file(fn.__code__.co_filename)}:{cells}:" \
           f"{describe(fn.__defaults__)}"


def _named(value) -> str:
    """A class, builtin, ufunc or library object found again under its module and name."""
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or module not in sys.modules:
        raise Unstable(repr(type(value)))
    found = sys.modules[module]
    for part in name.split("."):
        found = getattr(found, part, None)
    if found is not value:
        raise Unstable(f"{module}.{name}")
    return f"named:{module}.{name}:{_file(getattr(sys.modules[module], '__file__', None))}"


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def _file(path) -> str:
    """A source file's text, as a digest (a compiled extension or no file: its name)."""
    if not path or not path.endswith(".py"):
        return str(path)
    try:
        stat = os.stat(path)
    except OSError:
        raise Unstable(f"{path} cannot be read") from None
    return _file_digest(path, stat.st_mtime_ns, stat.st_size)


# ------------------------------------------------------------------ where values live
def locate(namespace, name, top_cells: dict):
    """Where a read value lives, as data: ("global", module, name) or ("cell", name)."""
    module = namespace.get("__name__") if isinstance(namespace, dict) else None
    if isinstance(module, str) and getattr(sys.modules.get(module), "__dict__", None) is namespace:
        return ("global", module, name)
    if isinstance(namespace, dict) and name in top_cells and namespace.get(name) is top_cells[name]:
        return ("cell", name)
    raise Unstable(f"{name!r} is read from a namespace other than a module or the function")


def namespace_of(place, top_cells: dict):
    if place[0] == "global":
        module = sys.modules.get(place[1])
        if module is None:
            raise Unstable(f"module {place[1]} is not imported")
        return module.__dict__
    return top_cells


def top_cells_of(fun) -> dict:
    inner = innermost(fun)
    if inner is None:
        return {}
    return dict(zip(inner.__code__.co_freevars, inner.__closure__ or ()))


def current(place, top_cells: dict):
    namespace = namespace_of(place, top_cells)
    name = place[-1]
    if name not in namespace:
        raise Unstable(f"{name!r} is gone")
    value = namespace[name]
    if isinstance(value, types.CellType):
        try:
            value = value.cell_contents
        except ValueError:
            raise Unstable(f"{name!r} is not bound") from None
    return value


# ------------------------------------------------------------------ files
def path_of(key: str) -> str:
    return os.path.join(cache_root(), "frontend", key + ".pkl")


def read(key: str):
    try:
        with open(path_of(key), "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:  # corrupt, truncated or from another version: computed again
        discard(path_of(key))
        return None


def write(key: str, entry) -> None:
    """Written atomically; a cache that cannot be written only costs the next process the
    front end."""
    try:
        write_atomic(path_of(key), pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass


# ------------------------------------------------------------------ entries
def store(key: str, fun, spec, facts: list) -> None:
    """Keep `spec` (a Specialized) and the size facts it recorded under `key`, with where and
    what everything it read was; nothing is kept when any of it has no stable description."""
    cells = top_cells_of(fun)
    try:
        reads = [(locate(ns, name, cells), describe(value)) for ns, name, value in spec.dependencies]
        reads += [(place, describe(value)) for place, value in (spec.attribute_reads or {}).items()]
        implicit = [locate(ns, name, cells) for ns, name in spec.implicit]
    except Unstable:
        return
    try:  # (unpickled only once the reads check out: it may name the user's modules)
        payload = pickle.dumps((spec.func, spec.out_tree, spec.out_static, facts),
                               protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a live Python object in the core form (a host callback's function)
        return
    write(key, {"format": FORMAT, "reads": reads, "implicit": implicit, "payload": payload})


def load(key: str, fun):
    """(Specialized, facts) from the entry under `key` when everything it read reads the
    same again, else None."""
    entry = read(key)
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        return None
    from .specialize import Specialized
    cells = top_cells_of(fun)
    try:
        dependencies = []
        for place, description in entry["reads"]:
            attribute = place[0] in ("module", "class")
            value = _attribute_read(place) if attribute else current(place, cells)
            if describe(value) != description:
                return None
            if not attribute:
                dependencies.append((namespace_of(place, cells), place[-1], value))
        func, out_tree, out_static, facts = pickle.loads(entry["payload"])
        inputs = func.params[len(func.params) - len(entry["implicit"]):]
        for place, param in zip(entry["implicit"], inputs):  # arrays read from outside
            array = np.asarray(canonical_value(current(place, cells)))
            if array.shape != tuple(param.aval.shape) or array.dtype != param.aval.dtype:
                return None
        implicit = [(namespace_of(place, cells), place[-1]) for place in entry["implicit"]]
    except (Unstable, KeyError, TypeError, ValueError):
        return None
    except Exception:  # a payload that no longer unpickles (a module moved): computed again
        discard(path_of(key))
        return None
    return Specialized(func, out_tree, out_static, dependencies, implicit, None), facts


def _attribute_read(place):
    """The attribute a ("module", module, name) or ("class", module, qualname, name) place
    names, read now."""
    owner = sys.modules.get(place[1])
    path = place[2].split(".") if place[0] == "class" else []
    for part in path + [place[-1]]:
        if owner is None or not hasattr(owner, part):
            raise Unstable(f"{'.'.join(map(str, place[1:]))} is not there")
        owner = getattr(owner, part)
    return owner
