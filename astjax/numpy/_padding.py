"""jnp.pad: constant padding is the `pad` primitive; the modes that copy the array's own
elements (edge, wrap, reflect, symmetric) are a gather along each padded axis, from indices
computed as NumPy defines them (periodic for widths beyond the axis's length)."""
import numpy as np

from . import _util as u
from ._creation import _as_operand, arange
from ._elementwise import clip, mod, where
from ._selection import take
from ._util import bind

COPYING_MODES = ("edge", "wrap", "reflect", "symmetric")


def pad(array, pad_width, mode="constant", constant_values=0):
    array = _as_operand(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (u.ndim(array), 2))
    if mode == "constant":
        fill = np.asarray(constant_values, u.dtype_of(array))
        return bind("pad", array, fill, config=tuple((int(lo), int(hi), 0) for lo, hi in widths))
    if mode not in COPYING_MODES:
        raise u.ShapeError(f"pad: mode={mode!r} is not supported",
                           hint=f"use mode='constant' or one of {', '.join(COPYING_MODES)}")
    if (widths < 0).any():
        raise u.ShapeError("pad: pad widths must be non-negative")
    for axis, (lo, hi) in enumerate(widths):
        if lo or hi:
            array = take(array, _source_index(u.shape(array)[axis], int(lo), int(hi), mode),
                         axis=axis)
    return array


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
