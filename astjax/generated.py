"""`show` and `make_source`: the generated source of a transformed function; `show_passes`:
the user's function after each signature-free source pass."""
import inspect

import libcst as cst

from .errors import TransformError
from .frontend.source import function_source
from .rewriters.source.pipeline import show_passes as _show_passes


def make_source(fun, *example_args, backend=None, **example_kwargs) -> str:
    """The generated module for `fun` specialised to these example arguments: Python source
    for the NumPy and Numba backends, StableHLO for `backend="xla"`."""
    from .compiled import JitFunction, jit
    if isinstance(fun, JitFunction):
        jitted = fun if backend in (None, fun.backend) else \
            jit(fun.fun, static_argnums=fun.static_argnums, static_argnames=fun.static_argnames,
                backend=backend)
    else:
        jitted = jit(fun, backend=backend)
    if not example_args and not example_kwargs:
        return jitted.source
    entry, _ = jitted.lookup(example_args, example_kwargs)
    return entry.source


def show(fun, *example_args, backend=None, **example_kwargs) -> None:
    """Print the generated source (of the last compilation, or for these example arguments)."""
    print(make_source(fun, *example_args, backend=backend, **example_kwargs))


def show_passes(fun) -> None:
    """Print `fun`'s source after each source pass (break/continue flags, single return), the
    form the interpreter then specialises."""
    target = inspect.unwrap(getattr(fun, "fun", fun))
    source = function_source(target)
    if not isinstance(source.node, cst.FunctionDef):
        print(source.file.module.code_for_node(source.node))
        return
    print(_show_passes(source.node, source.file.positions))


__all__ = ["make_source", "show", "show_passes", "TransformError"]
