"""Batching of reductions: the batch axis is axis 0, so axis parameters shift by one."""
from astjax.core.bind import bind

from .util import BATCH, along_axis, shift


def _reduction(name):
    return lambda args, dims, *, axis_size, axes: (bind(name, args[0], axes=shift(axes)), 0)


for _name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or"):
    BATCH.set(_name, _reduction(_name))
for _name in ("argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"):
    BATCH.set(_name, along_axis(_name, "axis"))
