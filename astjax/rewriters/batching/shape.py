"""Batching of shape primitives: each gains the batch axis in front of its parameters."""
from astjax.core.bind import aval, bind

from .util import BATCH, batched, lift_rank, shift


@BATCH.register("broadcast_in_dim")
def _broadcast_in_dim(args, dims, *, axis_size, shape, broadcast_dimensions):
    return bind("broadcast_in_dim", args[0], shape=(axis_size,) + tuple(shape),
                broadcast_dimensions=(0,) + shift(broadcast_dimensions)), 0


@BATCH.register("reshape")
def _reshape(args, dims, *, axis_size, new_sizes):
    return bind("reshape", args[0], new_sizes=(axis_size,) + tuple(new_sizes)), 0


@BATCH.register("transpose")
def _transpose(args, dims, *, axis_size, permutation):
    return bind("transpose", args[0], permutation=(0,) + shift(permutation)), 0


@BATCH.register("rev")
def _rev(args, dims, *, axis_size, dimensions):
    return bind("rev", args[0], dimensions=shift(dimensions)), 0


@BATCH.register("slice")
def _slice(args, dims, *, axis_size, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return bind("slice", args[0], start_indices=(0,) + tuple(start_indices),
                limit_indices=(axis_size,) + tuple(limit_indices),
                strides=(1,) + tuple(strides)), 0


@BATCH.register("pad")
def _pad(args, dims, *, axis_size, config):
    (x, value), (x_dim, value_dim) = args, dims
    x = batched(x, x_dim, axis_size)
    config = ((0, 0, 0),) + tuple(config)
    if value_dim is None:
        return bind("pad", x, value, config=config), 0
    # A per-lane padding value: pad with zeros, then fill the padding from a mask.
    padded = bind("pad", x, bind("convert", 0, dtype=aval(x).dtype.name), config=config)
    inside = bind("pad", bind("full", True, shape=aval(x).shape, dtype="bool"), False,
                  config=config)
    fill = lift_rank(bind("convert", value, dtype=aval(x).dtype.name), aval(padded).ndim - 1)
    return bind("select", inside, padded, fill), 0


@BATCH.register("concatenate")
def _concatenate(args, dims, *, axis_size, dimension):
    parts = [batched(x, d, axis_size) for x, d in zip(args, dims)]
    return bind("concatenate", *parts, dimension=dimension + 1), 0
