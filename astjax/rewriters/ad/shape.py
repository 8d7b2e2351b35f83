"""Derivatives of the shape primitives: all linear, so the forward rule applies the primitive
to the tangent and the reverse rule undoes the reshaping on the cotangent."""
import numpy as np

from astjax.core.bind import bind

from .rules import VJP, linear
from .util import aval, unbroadcast


@VJP.register("broadcast_in_dim")
def _broadcast_in_dim(ct, x, out, shape, broadcast_dimensions):
    return [_sum_to(ct, aval(x).shape, broadcast_dimensions)]


def _sum_to(ct, shape, dims):
    """Sum a broadcast result back to `shape`, whose axes sit at `dims` of the result."""
    out_shape = aval(ct).shape
    summed = [i for i in range(len(out_shape)) if i not in dims]
    summed += [d for s, d in zip(shape, dims) if s == 1 and out_shape[d] != 1]
    if summed:
        ct = bind("reduce_sum", ct, axes=tuple(sorted(summed)))
    return bind("reshape", ct, new_sizes=tuple(shape)) if aval(ct).shape != tuple(shape) else ct


VJP.register("reshape")(lambda ct, x, out, new_sizes: [bind("reshape", ct, new_sizes=aval(x).shape)])
VJP.register("transpose")(lambda ct, x, out, permutation: [
    bind("transpose", ct, permutation=tuple(int(i) for i in np.argsort(permutation)))])
VJP.register("rev")(lambda ct, x, out, dimensions: [bind("rev", ct, dimensions=dimensions)])


@VJP.register("slice")
def _slice(ct, x, out, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    config = []
    for size, start, n, step in zip(aval(x).shape, start_indices, aval(out).shape, strides):
        end = start + (n - 1) * step + 1 if n else start
        config.append((start, size - end, step - 1) if n else (start, size - start, 0))
    return [bind("pad", ct, 0.0, config=tuple(config))]


@VJP.register("pad")
def _pad(ct, x, padding_value, out, config):
    """Negative padding cropped the dilated input: pad the cotangent back out, then take
    every (interior + 1)-th element from the low padding on."""
    uncrop = tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in config)
    full = bind("pad", ct, 0.0, config=uncrop) if any(a or b for a, b, _ in uncrop) else ct
    starts = tuple(max(lo, 0) for lo, _, _ in config)
    limits = tuple(s + (n - 1) * (interior + 1) + 1 if n else s
                   for s, (_, _, interior), n in zip(starts, config, aval(x).shape))
    steps = tuple(interior + 1 for _, _, interior in config)
    x_bar = bind("slice", full, start_indices=starts, limit_indices=limits, strides=steps)
    total = bind("reduce_sum", ct, axes=tuple(range(len(aval(ct).shape))))
    inner = bind("reduce_sum", x_bar, axes=tuple(range(len(aval(x_bar).shape))))
    return [x_bar, unbroadcast(bind("sub", total, inner), padding_value)
            if hasattr(padding_value, "aval") else None]


@VJP.register("concatenate")
def _concatenate(ct, *xs, out, dimension):
    bars, start = [], 0
    shape = aval(ct).shape
    for x in xs:
        n = aval(x).shape[dimension]
        starts = tuple(start if i == dimension else 0 for i in range(len(shape)))
        limits = tuple(start + n if i == dimension else d for i, d in enumerate(shape))
        bars.append(bind("slice", ct, start_indices=starts, limit_indices=limits))
        start += n
    return bars


for _name in ("broadcast_in_dim", "reshape", "transpose", "rev", "slice", "concatenate", "pad"):
    linear(_name)
