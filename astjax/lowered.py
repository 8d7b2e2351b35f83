"""JAX's ahead-of-time API on a jitted function: `jit(f).lower(*args)` specialises the call's
signature now (the front end runs), `.compile()` makes the backend's callable for it, and what
that returns is called like the function. Arguments may be arrays or `ShapeDtypeStruct`s;
`as_text()` is the generated module (astjax's readable Python, not StableHLO)."""
import numpy as np

from .tree_util import tree_map


def _example(x):
    """An array standing for an abstract argument (a ShapeDtypeStruct), else the argument."""
    if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "__array__"):
        return np.zeros(x.shape, x.dtype)
    return x


class Traced:
    """`jit(f).trace(*args)`: the signature specialised; `.lower()` goes on."""

    def __init__(self, jitted, args, kwargs):
        self._jitted = jitted
        args, kwargs = tree_map(_example, (args, kwargs))
        self._entry, self._leaves = jitted.lookup(args, kwargs)

    def lower(self, **_):
        return Lowered(self)

    def as_text(self, *_, **__) -> str:
        return self._entry.source


class Lowered:
    def __init__(self, traced: Traced):
        self._traced = traced

    def compile(self, compiler_options=None):
        traced = self._traced
        traced._entry.callable_for(traced._leaves)
        return CompiledCall(traced)

    def as_text(self, *_, **__) -> str:
        return self._traced.as_text()

    def cost_analysis(self):
        return None


class CompiledCall:
    """The compiled function for the lowered signature (called like `jit(f)`)."""

    def __init__(self, traced: Traced):
        self._traced = traced

    def __call__(self, *args, **kwargs):
        return self._traced._jitted(*args, **kwargs)

    def as_text(self, *_, **__) -> str:
        return self._traced.as_text()

    def cost_analysis(self):
        return None

    def memory_analysis(self):
        return None
