"""Batching of effects."""
from astjax.core.bind import bind

from .util import BATCH


@BATCH.register("debug_print")
def _debug_print(args, dims, *, axis_size, fmt):
    """Prints the whole batch of each batched value (one line per call, as JAX does)."""
    return bind("debug_print", *args, fmt=fmt), []
