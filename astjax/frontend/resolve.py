"""What a name read by user code means: a user helper to interpret, an astjax library function,
a NumPy/JAX name standing for its astjax counterpart, a static Python value, or an array that
becomes an input of the compiled function.

`Names` (at the end) looks a name up for the interpreter (locals, closure cells, globals,
builtins) and records what the function reads from outside; the functions before it say what a
value found that way stands for.
"""
import builtins
import functools
import importlib
import math
import types

import numpy as np

from ..core.avals import AVal
from ..core.ir import MISSING, Var
from ..errors import ConcretizationError, ImpurityError, UndefinedNameError
from ..rewriters.source.loop_flags import MISSING as MISSING_NAME
from .check import IO_BUILTINS
from .frame import Frame
from .pyflow import make_enumerate, make_range, make_zip
from .values import Undefined, UserFunction

LIBRARY_PREFIXES = (  # top-level packages whose functions are library code, not the user's
    "astjax", "numpy", "scipy", "math", "builtins", "operator", "functools", "itertools",
    "collections", "typing", "dataclasses", "_operator")


# Modules that stand for others, registered by the layers above the front end (the API
# package registers itself as "jax"), so the front end imports nothing above it.
STANDS_FOR: dict = {}


def register_module(name: str, module) -> None:
    """Make user code's `import name` (or `jax.<name>` alias) mean `module`."""
    STANDS_FOR[name] = module


# Modules user code may import, and the astjax module that stands for each: imported when a
# program first names one (astjax.random alone took 60-80 ms of a first call to import, in
# a program that never used it, where no bytecode is cached).
_STANDS_IN = {"numpy": "astjax.numpy", "numpy.linalg": "astjax.numpy.linalg",
              "jax.numpy": "astjax.numpy", "jax.numpy.linalg": "astjax.numpy.linalg",
              "jax.lax": "astjax.lax", "jax.nn": "astjax.nn", "jax.tree_util": "astjax.tree_util",
              "jax.tree": "astjax.tree", "jax.random": "astjax.random"}


def stand_in(name: str):
    """The astjax module standing for the module user code calls `name`, or None."""
    registered = STANDS_FOR.get(name)
    if registered is not None:
        return registered
    target = _STANDS_IN.get(name)
    return importlib.import_module(target) if target is not None else None


@functools.lru_cache(maxsize=None)
def numpy_function_map() -> dict:
    """id(numpy function) -> the astjax.numpy function of the same name."""
    import astjax.numpy as jnp
    out = {}
    for name in dir(jnp):
        ours, theirs = getattr(jnp, name), getattr(np, name, None)
        if callable(theirs) and callable(ours) and not isinstance(theirs, type):
            out[id(theirs)] = ours
    return out


def translate(value):
    """The value user code should see for a module or function it named."""
    if isinstance(value, types.ModuleType):
        mapped = stand_in(value.__name__)
        return mapped if mapped is not None else (_counterpart(value.__name__) or value)
    if callable(value) and id(value) in numpy_function_map():
        return numpy_function_map()[id(value)]
    if callable(value) and (getattr(value, "__module__", None) or "").startswith("jax"):
        return _jax_function(value) or value
    return value


# JAX's public modules whose functions user code may import by name (`from jax.scipy.optimize
# import minimize`): each stands for the astjax module of the same path
_JAX_MODULES = ("jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax",
                "jax.lax.linalg", "jax.nn", "jax.nn.initializers", "jax.random",
                "jax.tree_util", "jax.tree", "jax.scipy.special", "jax.scipy.linalg",
                "jax.scipy.optimize", "jax.scipy.stats", "jax.scipy.integrate", "jax.scipy.signal",
                "jax.scipy.ndimage", "jax.debug", "jax.dtypes", "jax.flatten_util", "jax.ops",
                "jax.image")
_INDEXED: dict = {}  # JAX module name -> {id(its function): astjax's function}


def _jax_function(fn):
    """astjax's function for a JAX function, found by name in the module JAX exports it from
    (only modules the program has imported are looked at)."""
    import sys
    for name in _JAX_MODULES:
        if name not in _INDEXED and name in sys.modules:
            _INDEXED[name] = _index(sys.modules[name], name)
        found = _INDEXED.get(name, {}).get(id(fn))
        if found is not None:
            return found
    return None


def _index(theirs, name: str) -> dict:
    ours = stand_in(name) or _counterpart(name)
    if ours is None:
        return {}
    out = {}
    for attr in dir(theirs):
        value, counterpart = getattr(theirs, attr, None), getattr(ours, attr, None)
        if callable(value) and counterpart is not None and not isinstance(value, type):
            out[id(value)] = counterpart
    return out


@functools.lru_cache(maxsize=None)
def _counterpart(name: str):
    """astjax's module for JAX's module `name` (jax.scipy.linalg -> astjax.scipy.linalg)."""
    if not name.startswith("jax."):
        return None
    try:
        return importlib.import_module("ast" + name)
    except ImportError:
        return None


def is_array_input(value) -> bool:
    """Arrays read from globals/closures become inputs (read afresh at every call)."""
    if isinstance(value, np.ndarray):
        return True
    return hasattr(value, "__array__") and hasattr(value, "shape") and hasattr(value, "dtype") \
        and not isinstance(value, (np.generic, type))


def user_call_method(value):
    """`value.__call__` when value is an instance of a user class that defines it, else None."""
    if isinstance(value, (type, types.FunctionType, types.MethodType)):
        return None
    call = getattr(type(value), "__call__", None)
    if isinstance(call, types.FunctionType) and is_user_function(call):
        return value.__call__
    return None


def is_user_function(value) -> bool:
    fn = value.__func__ if isinstance(value, types.MethodType) else value
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", None) or ""
    return module.split(".")[0] not in LIBRARY_PREFIXES  # "scipy_cases" is the user's


BUILTINS = vars(builtins)


def non_array_function_error(fn, name: str):
    module = getattr(fn, "__module__", None) or ""
    short = getattr(fn, "__name__", name)
    if module == "math" or getattr(math, short, None) is fn:
        return ConcretizationError(
            f"math.{short} is not an array function, but it is given an array",
            hint=f"write jnp.{short}(...) (import astjax.numpy as jnp)")
    return ConcretizationError(
        f"{name} cannot take an array value: it would need the array's contents at compile time",
        hint="use the astjax.numpy / astjax.lax equivalent, or pass the value as a static argument")


# Builtins that compiled code sees through a stand-in, which converts loops over array values
_STAND_INS = {"range": make_range, "enumerate": make_enumerate, "zip": make_zip}


class Names:
    """The interpreter's name lookup: a frame's locals, then the enclosing frames' and the
    closure cells, then the function's globals, then the builtins.

    It records in `context` what the function reads from outside (`dependencies`, to detect
    stale caches) and turns arrays read from outside into inputs (`implicit`); `interpret`
    makes a user function read by name into the UserFunction the interpreter evaluates."""

    def __init__(self, context, interpret):
        self.context = context
        self.interpret = interpret

    def lookup(self, name: str, frame: Frame, node):
        f = frame
        while f is not None:
            if name in f.env:
                return _assigned(f.env[name], name, frame, node)
            if name in f.function.cells:
                return self._from_cell(f.function, name)
            f = f.function.enclosing
        return self._global(name, frame, node)

    def outer_value(self, namespace, name, value, key):
        """A value read from outside the function (a global, a cell, an attribute or item of
        an outside object, found in `namespace` under `name`; `key` identifies the slot):
        recorded, and arrays become inputs, read afresh at every call."""
        if is_array_input(value):
            if key not in self.context.implicit:
                arr = np.asarray(value)
                self.context.implicit[key] = (namespace, name, Var(AVal(arr.shape, arr.dtype), name))
            return self.context.implicit[key][2]
        self.context.dependencies[key] = (namespace, name, value)
        value = translate(value)
        return self.interpret(value) if is_user_function(value) else value

    def _from_cell(self, fn: UserFunction, name: str):
        try:
            value = fn.cells[name].cell_contents
        except ValueError:
            raise UndefinedNameError(f"free variable {name!r} is not bound yet") from None
        return self.outer_value(fn.cells, name, value, ("cell", id(fn.cells[name])))

    def _global(self, name: str, frame: Frame, node):
        if name == MISSING_NAME:  # the placeholder rewriters.loop_flags writes
            return MISSING
        namespace = frame.function.globals
        if name in namespace:
            return self.outer_value(namespace, name, namespace[name], (id(namespace), name))
        if name in _STAND_INS:
            return _STAND_INS[name]
        if name in BUILTINS:
            return _builtin(name)
        raise UndefinedNameError(f"name {name!r} is not defined", frame.file.loc(node),
                                 hint="define it, import it, or pass it as an argument")


def _assigned(value, name: str, frame: Frame, node):
    if isinstance(value, Undefined):
        raise UndefinedNameError(f"{name!r} is used before it is assigned", frame.file.loc(node))
    return value


def _builtin(name: str):
    """A builtin by name; the fence's refusal for I/O ones, which it could not see being read
    under another name (`p = print`) or in a file it could not check (a star import)."""
    if name in IO_BUILTINS:
        message, hint = IO_BUILTINS[name]
        raise ImpurityError(message, hint=hint)  # placed at the name by the expression
    return BUILTINS[name]
