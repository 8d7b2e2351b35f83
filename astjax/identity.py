"""What a function to compile *is*, as a hashable key, independent of the wrapper objects.

`jit(f)` or `grad(f)` built anew on every trip of a loop must find the code compiled on the
first trip. So compiled entries are kept per identity, not per wrapper: two callables with
equal identities read exactly the same things and compile to the same code.

- A Python function is its code object, its globals, its closure cells and its defaults (the
  cells themselves, not their contents: a closure made again in the same frame shares them,
  and an entry's staleness check reads the values through them).
- A transformation (grad, vmap, jacfwd, ...) is its class, its parameters and the identity of
  the function it wraps; a bound method is its function's identity and its object; a
  `functools.partial` its function's identity and its bound arguments.
- Anything else (a custom_jvp, a callable object) is itself.
Values that are not plain data are compared by identity (`Same`), never by contents: an
array's contents must not decide which code runs.
"""
import functools
import types

_PLAIN = (bool, int, float, complex, str, bytes, type(None))


class Same:
    """A value compared by identity (and kept alive, so its id is never reused)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return isinstance(other, Same) and other.value is self.value


def identity(fun):
    """The key of everything `fun` compiles from (see the module docstring)."""
    if isinstance(fun, types.FunctionType):
        return ("function", fun.__code__, Same(fun.__globals__),
                tuple(Same(c) for c in fun.__closure__ or ()),
                frozen(fun.__defaults__), frozen(fun.__kwdefaults__))
    if isinstance(fun, types.MethodType):
        return ("method", identity(fun.__func__), Same(fun.__self__))
    if isinstance(fun, functools.partial):
        return ("partial", identity(fun.func), frozen(fun.args), frozen(fun.keywords))
    parameters = getattr(fun, "identity_parameters", None)
    if parameters is not None:
        return (type(fun), identity(fun.fun), frozen(parameters()))
    return Same(fun)


def frozen(value):
    """A hashable stand-in for a parameter: plain data by value, containers by their frozen
    items, callables by identity, anything else by identity."""
    if isinstance(value, _PLAIN):
        return (type(value), value)
    if isinstance(value, (tuple, list)):
        return (type(value), tuple(frozen(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((frozen(k), frozen(v)) for k, v in value.items()))
    if callable(value):
        return identity(value)
    return Same(value)
