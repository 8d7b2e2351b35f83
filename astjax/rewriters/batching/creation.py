"""Batching of creation primitives: `full` of a batched value broadcasts it per lane."""
from astjax.core.bind import bind

from .util import BATCH


@BATCH.register("iota")
def _iota(args, dims, *, axis_size, **params):
    raise AssertionError("iota has no operands, so it is never batched")


@BATCH.register("full")
def _full(args, dims, *, axis_size, shape, dtype):
    value = bind("convert", args[0], dtype=dtype)
    return bind("broadcast_in_dim", value, shape=(axis_size,) + tuple(shape),
                broadcast_dimensions=(0,)), 0
