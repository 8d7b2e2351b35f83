"""jnp.pad: constant padding is the `pad` primitive; the modes that copy the array's own
elements (edge, wrap, reflect, symmetric) are a gather along each padded axis, from indices
computed as NumPy defines them (periodic for widths beyond the axis's length); the statistic
modes (maximum, minimum, mean, median) and linear_ramp join blocks computed from each axis's
ends; empty pads with zeros, as JAX does. Axes are padded one after another, as NumPy pads
them, so a corner takes its values from the axes padded before."""
import numpy as np

from . import _util as u
from ._creation import _as_operand, arange
from ._elementwise import clip, floor, mod, rint, where
from ._joining import concatenate
from ._quantiles import median
from ._reductions import max as _max, mean, min as _min
from ._selection import take
from ._shape import _slice_axis, broadcast_to, reshape
from ._util import bind

COPYING_MODES = ("edge", "wrap", "reflect", "symmetric")
STATISTICS = {"maximum": _max, "minimum": _min, "mean": mean, "median": median}
MODES = ("constant",) + COPYING_MODES + tuple(STATISTICS) + ("linear_ramp", "empty")


def pad(array, pad_width, mode="constant", constant_values=0, stat_length=None,
        end_values=0):
    array = _as_operand(array)
    rank = u.ndim(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (rank, 2))
    if mode not in MODES:
        raise u.ShapeError(f"pad: mode={mode!r} is not supported",
                           hint=f"use one of {', '.join(MODES)}")
    if (widths < 0).any():
        raise u.ShapeError("pad: pad widths must be non-negative")
    if mode in ("constant", "empty"):
        fill = np.asarray(constant_values if mode == "constant" else 0, u.dtype_of(array))
        return bind("pad", array, fill, config=tuple((int(lo), int(hi), 0) for lo, hi in widths))
    lengths = np.broadcast_to(np.asarray(stat_length if stat_length is not None else -1,
                                         dtype=np.int64), (rank, 2))
    ends = np.broadcast_to(np.asarray(end_values), (rank, 2))
    for axis, (lo, hi) in enumerate(widths):
        lo, hi = int(lo), int(hi)
        if not (lo or hi):
            continue
        if mode in COPYING_MODES:
            index = _source_index(u.shape(array)[axis], lo, hi, mode)
            array = take(array, index, axis=axis)
        elif mode in STATISTICS:
            array = _pad_by_statistic(array, axis, lo, hi, STATISTICS[mode], lengths[axis])
        else:
            array = _pad_by_ramps(array, axis, lo, hi, ends[axis])
    return array


def _pad_by_statistic(array, axis: int, lo: int, hi: int, statistic, lengths):
    """The axis extended by `lo` copies of the statistic of its first `lengths[0]` elements
    and `hi` copies of that of its last `lengths[1]` (all of them, where negative)."""
    n = u.shape(array)[axis]
    if n == 0:
        raise u.ShapeError("pad: a statistic of an empty axis", hint="use mode='constant'")
    first, last = (n if k < 0 or k > n else k for k in (int(lengths[0]), int(lengths[1])))
    pieces = [_statistic_block(array, axis, 0, first, lo, statistic)] if lo else []
    pieces.append(array)
    if hi:
        pieces.append(_statistic_block(array, axis, n - last, n, hi, statistic))
    return concatenate(pieces, axis=axis)


def _statistic_block(array, axis: int, start, stop, width: int, statistic):
    """`width` copies along `axis` of the statistic of elements start:stop, in the dtype."""
    dtype = u.dtype_of(array)
    value = statistic(_slice_axis(array, axis, start, stop), axis=axis, keepdims=True)
    if dtype.kind in "iub" and np.dtype(u.dtype_of(value)).kind == "f":
        value = rint(value)  # (NumPy rounds an integer array's mean to the nearest)
    value = value.astype(dtype) if u.dtype_of(value) != dtype else value
    shape = list(u.shape(array))
    shape[axis] = width
    return broadcast_to(value, tuple(shape))


def _pad_by_ramps(array, axis: int, lo: int, hi: int, ends):
    """Linear ramps from `ends[0]` up to the first element and from the last element to
    `ends[1]` (NumPy's linear_ramp: the edges themselves are not repeated)."""
    n = u.shape(array)[axis]
    dtype = u.dtype_of(array)
    rank = u.ndim(array)
    pieces = []
    if lo:
        edge = _slice_axis(array, axis, 0, 1)
        steps = reshape(arange(lo) / lo, tuple(lo if d == axis else 1 for d in range(rank)))
        pieces.append(_as_dtype(ends[0] + (edge - ends[0]) * steps, dtype))
    pieces.append(array)
    if hi:
        edge = _slice_axis(array, axis, n - 1, n)
        steps = reshape(arange(hi - 1, -1, -1) / hi, tuple(hi if d == axis else 1
                                                           for d in range(rank)))
        pieces.append(_as_dtype(ends[1] + (edge - ends[1]) * steps, dtype))
    return concatenate(pieces, axis=axis)


def _source_index(n, lo: int, hi: int, mode: str):
    """For each position of the padded axis, the position of the original axis (length `n`)
    its element comes from."""
    if n == 0:
        raise u.ShapeError(f"pad: mode={mode!r} cannot extend an empty axis",
                           hint="use mode='constant'")
    j = arange(n + lo + hi) - lo
    if mode == "edge":
        return clip(j, 0, n - 1)
    if mode == "wrap":
        return mod(j, n)
    period = 2 * n if mode == "symmetric" else max(2 * n - 2, 1)
    k = mod(j, period)
    return where(k < n, k, period - k - (1 if mode == "symmetric" else 0))


def _as_dtype(ramp, dtype):
    """A ramp in the array's dtype: an integer one rounded down (NumPy's linspace)."""
    return (floor(ramp) if np.dtype(dtype).kind in "iu" else ramp).astype(dtype)
