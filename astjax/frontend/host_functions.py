"""A user function handed to a host call (`pure_callback`, `io_callback`, `debug.callback`) as
the Python function it is. The interpreter holds user functions as `UserFunction`s, which
evaluate their source abstractly; a host call runs the function for real, on arrays.

A function defined outside the compiled code is itself. One defined inside it (a nested def,
a lambda) was never made by Python: it is compiled from its source, its free names read from
the module's globals and from the concrete values of the frames it was made in (a value being
traced cannot reach a host call: pass it as an argument)."""
import functools
import textwrap

import libcst as cst

from astjax.core.ir import Var

from .values import Undefined, UserFunction


def python_function(fn, making: frozenset = frozenset()):
    """`fn` as a callable Python runs (partials and bound methods kept as such). `making`:
    the nested functions being made already (one reading another, or itself, by name)."""
    if isinstance(fn, functools.partial):
        return functools.partial(python_function(fn.func, making), *fn.args, **fn.keywords)
    if not isinstance(fn, UserFunction):
        return fn
    if fn.python is not None:
        return fn.python
    made = _made_from_source(fn, making | {id(fn.node)})
    return made.__get__(fn.bound_self) if fn.bound_self is not None else made


def _made_from_source(fn: UserFunction, making: frozenset):
    namespace = dict(fn.globals)
    frames, frame = [], fn.enclosing
    while frame is not None:
        frames.append(frame)
        frame = frame.function.enclosing
    for frame in reversed(frames):  # (inner frames shadow outer ones)
        namespace.update({name: cell.cell_contents for name, cell in frame.function.cells.items()
                          if _filled(cell)})
        namespace.update({name: _concrete(value, making) for name, value in frame.env.items()
                          if not isinstance(value, (Var, Undefined)) and not (
                              isinstance(value, UserFunction) and id(value.node) in making)})
    file, loc = fn.source.file, fn.source.loc()
    text = textwrap.dedent(file.module.code_for_node(fn.node)).strip()
    padding = "\n" * ((loc.line if loc else 1) - 1)  # (tracebacks show the user's lines)
    if isinstance(fn.node, cst.Lambda):
        exec(compile(f"{padding}_made = ({text})", file.path, "exec"), namespace)
        return namespace["_made"]
    exec(compile(padding + text, file.path, "exec"), namespace)
    return namespace[fn.node.name.value]


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # (an empty cell: assigned later)
        return False
    return True


def _concrete(value, making: frozenset):
    return python_function(value, making) if isinstance(value, UserFunction) else value
