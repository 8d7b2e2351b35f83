"""Batching of effects."""
from astjax.core.bind import bind, current_builder
from astjax.core.host import PerExample
from astjax.errors import TransformError

from .callback import per_example
from .util import BATCH


@BATCH.register("debug_print")
def _debug_print(args, dims, *, axis_size, fmt):
    """Prints the whole batch of each batched value (one line per call, as JAX does)."""
    return bind("debug_print", *args, fmt=fmt), []


@BATCH.register("io_callback")
def _io_callback(args, dims, *, axis_size, callback, results, ordered):
    """Called once per example, in order (an ordered one cannot be batched, as in JAX)."""
    if ordered:
        builder = current_builder()
        raise TransformError("an ordered io_callback cannot be batched by vmap",
                             builder.loc if builder else None,
                             hint="pass ordered=False, or call it outside the vmap")
    return per_example("io_callback", args, dims, axis_size, callback, results,
                       ordered=ordered)


@BATCH.register("debug_callback")
def _debug_callback(args, dims, *, axis_size, callback, ordered):
    """Called once per example, as JAX does."""
    looped = PerExample(callback, tuple(d is not None for d in dims), ())
    return bind("debug_callback", *args, callback=looped, ordered=ordered), []
