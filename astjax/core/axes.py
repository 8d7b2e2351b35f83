"""Named axes: the mapped axes (of `pmap`, or `vmap(..., axis_name=)`) that collectives such as
`lax.psum(x, "batch")` refer to, innermost last, with their sizes.

A function is compiled for one example; while it is, each enclosing map's name and size is on
this stack, so a collective knows its axis' size (an `all_gather`'s result shape needs it) and a
name that no map binds is an error at the user's line. The stack is per thread.
"""
import contextlib
import threading

from ..errors import TransformError

_local = threading.local()


def _stack() -> list:
    if not hasattr(_local, "axes"):
        _local.axes = []
    return _local.axes


@contextlib.contextmanager
def named_axis(name, size: int):
    """While compiling the body of a map over an axis called `name` of `size` examples."""
    if name is None:
        yield
        return
    _stack().append((name, size))
    try:
        yield
    finally:
        _stack().pop()


def axis_size(name) -> int:
    """The size of the innermost mapped axis called `name`."""
    for bound, size in reversed(_stack()):
        if bound == name:
            return size
    known = ", ".join(repr(n) for n, _ in _stack()) or "none"
    raise TransformError(f"no mapped axis is named {name!r} here (named axes: {known})",
                         hint="call collectives (psum, pmean, all_gather, ...) inside "
                              "pmap(f, axis_name=...) or vmap(f, axis_name=...) with that name")


@contextlib.contextmanager
def replicated_gradients(names: tuple):
    """While compiling a shard_map's function over mesh axes `names` (with JAX's check_vma
    typing): a gradient of a value replicated over one of them is summed over it (vma_sum)."""
    outer = getattr(_local, "replicated", ())
    _local.replicated = tuple(names)
    try:
        yield
    finally:
        _local.replicated = outer


def replicated_gradient_axes() -> tuple:
    return getattr(_local, "replicated", ())
