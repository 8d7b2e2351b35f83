"""`jax.ops`: segment reductions. Each scatters the data's rows into one row per segment,
starting from the reduction's identity, as JAX does: `segment_sum(data, ids, n)[k]` reduces
the rows of `data` whose id is k; an id outside [0, n), a negative one included, is dropped
(`mode="clip"` clamps it instead), and a segment no row reaches holds the identity (0, 1, the
dtype's lowest or highest value)."""
import numpy as np

from . import numpy as jnp
from .errors import ShapeError
from .lax.slicing import GatherScatterMode
from .numpy import _util as u
from .numpy._creation import _as_operand


def segment_sum(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    return _segment(data, segment_ids, num_segments, "add", mode)


def segment_prod(data, segment_ids, num_segments=None, indices_are_sorted=False,
                 unique_indices=False, bucket_size=None, mode=None):
    return _segment(data, segment_ids, num_segments, "multiply", mode)


def segment_max(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    return _segment(data, segment_ids, num_segments, "max", mode)


def segment_min(data, segment_ids, num_segments=None, indices_are_sorted=False,
                unique_indices=False, bucket_size=None, mode=None):
    return _segment(data, segment_ids, num_segments, "min", mode)


def _segment(data, segment_ids, num_segments, op: str, mode):
    data = _as_operand(data)
    dtype = np.dtype(u.dtype_of(data))
    count = _segment_count(segment_ids, num_segments)
    start = jnp.full((count,) + tuple(u.shape(data)[1:]), _identity(op, dtype), dtype)
    ids = _as_operand(segment_ids)
    if mode is not None and GatherScatterMode.from_any(mode) is GatherScatterMode.CLIP:
        ids = jnp.clip(ids, 0, count - 1)
    else:  # (a negative id is out of range, not counted from the end: dropped, as in JAX)
        ids = jnp.where(ids < 0, count, ids)
    return getattr(start.at[ids], op)(data, mode="drop")


def _segment_count(segment_ids, num_segments) -> int:
    """`num_segments`, or one more than the largest id where the ids are known values."""
    if num_segments is not None:
        return u.static_int(num_segments, "num_segments")
    if isinstance(segment_ids, (np.ndarray, list, tuple)):
        ids = np.asarray(segment_ids)
        return int(ids.max()) + 1 if ids.size else 0
    raise ShapeError("segment reductions of computed segment ids need num_segments",
                     hint="pass num_segments=<the number of segments> (a Python int)")


def _identity(op: str, dtype: np.dtype):
    if op == "add":
        return 0
    if op == "multiply":
        return 1
    lowest = op == "max"
    if dtype.kind == "f" or dtype.kind == "c":
        return -np.inf if lowest else np.inf
    if dtype.kind == "b":
        return not lowest
    info = np.iinfo(dtype)
    return info.min if lowest else info.max
