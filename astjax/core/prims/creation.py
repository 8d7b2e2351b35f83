"""Creation primitives: arrays made from static parameters (iota, full)."""
import numpy as np

from ..avals import AVal
from ..primitives import define


def _iota(*, dtype, shape, dimension):
    index = np.arange(shape[dimension], dtype=dtype)
    expanded = [1] * len(shape)
    expanded[dimension] = shape[dimension]
    return np.broadcast_to(index.reshape(expanded), shape).copy()


define("iota", _iota, lambda *, dtype, shape, dimension: AVal(tuple(shape), np.dtype(dtype)),
       kind="creation")
define("full", lambda value, *, shape, dtype: np.full(shape, value, dtype=dtype),
       lambda v, *, shape, dtype: AVal(tuple(shape), np.dtype(dtype)), kind="creation")


