"""Binning and piecewise-linear interpolation: bincount, digitize, histogram (1-D, 2-D, N-D),
histogram_bin_edges, interp.

Counting is a scatter-add into a static number of bins, so these compile: bincount needs a
static `length` for abstract input (as in JAX), and the number of histogram bins is static.
"""
import builtins
import math

import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray, linspace, ones_like, zeros
from ._elementwise import where
from ._reductions import diff, max, min
from ._selection import ravel_multi_index, searchsorted
from ._shape import reshape, transpose
from ._util import bind


def _inexact(*arrays):
    arrays = [_as_operand(a) for a in arrays]
    dtype = u.inexact_type_of(*arrays)
    return [a if u.dtype_of(a) == dtype else bind("convert", a, dtype=dtype.name)
            for a in arrays]


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """Counts (or summed weights) of each non-negative integer; negative values count as 0 and
    values from `length` on are dropped, as in JAX."""
    x = _as_operand(x)
    if u.kind(x) == "b":
        x = bind("convert", x, dtype="int64")
    if u.kind(x) not in "iu":
        raise u.DtypeError(f"bincount: x must be an integer array, not {u.dtype_of(x)}")
    if u.ndim(x) != 1:
        raise u.ShapeError("bincount: x must be 1-D")
    minlength = u.static_int(minlength, "bincount's minlength")
    if length is None:
        if u.is_abstract(x):
            raise u.concretization("bincount's result length depends on the values of x",
                                   hint="pass a static length=")
        values = np.asarray(x)
        length = builtins.max(minlength, int(values.max()) + 1 if values.size else 0)
    length = u.static_int(length, "bincount's length")
    if weights is None:
        weights, dtype = np.asarray(1, np.int64), np.dtype(np.int64)
    else:
        weights = _as_operand(weights)
        if u.shape(weights) != u.shape(x):
            raise u.ShapeError("bincount: weights must have the shape of x")
        dtype = u.dtype_of(weights)
    index = bind("max", x, 0)
    updates = bind("broadcast_in_dim", weights, shape=u.shape(x), broadcast_dimensions=()) \
        if u.ndim(weights) == 0 else weights
    return bind("scatter", zeros((length,), dtype), index, updates, axis=0, mode="add")


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin each x falls in (bins increasing or decreasing)."""
    x, bins = _as_operand(x), _as_operand(bins)
    if u.ndim(bins) != 1:
        raise u.ShapeError("digitize: bins must be 1-D")
    n = u.shape(bins)[0]
    if n == 0:
        return zeros(u.shape(x), np.int32)  # (as JAX's, and searchsorted's below)
    side = "left" if right else "right"
    rising = searchsorted(bins, x, side=side)
    falling = bind("sub", n, searchsorted(bins[::-1], x, side=side))
    return where(bind("ge", bins[-1], bins[0]), rising, falling)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a = _inexact(a)[0]
    dtype = u.dtype_of(a)
    if isinstance(bins, str):
        raise u.DtypeError("histogram: string bins (estimators) are not supported",
                           hint="pass a number of bins or the edges")
    if np.ndim(bins) == 1:
        return _inexact(bins, a)[0] if u.is_abstract(bins) else asarray(np.asarray(bins, dtype))
    count = u.static_int(bins, "the number of bins")
    if range is None:
        lo, hi = min(a), max(a)
    else:
        if len(range) != 2:
            raise u.ShapeError(f"histogram: range must be a pair, got {range!r}")
        lo, hi = (_as_operand(np.asarray(r, dtype)) if not u.is_abstract(r) else r for r in range)
    empty = bind("eq", lo, hi)
    lo = where(empty, bind("sub", lo, 0.5), lo)
    hi = where(empty, bind("add", hi, 0.5), hi)
    return linspace(lo, hi, count + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):
    a, weights = _weighted(a, weights, lambda a, w: u.shape(a) == u.shape(w),
                           "weights must have the shape of a")
    edges = histogram_bin_edges(a, bins, range)
    weights = ones_like(a) if weights is None else weights  # (float counts, as JAX's)
    counts = _histogram_counts([a], [edges], weights)
    if density:
        counts = bind("div", bind("div", counts, diff(edges)), bind("reduce_sum", counts, axes=(0,)))
    return counts, edges


def _weighted(a, weights, fits, message):
    """(a, weights) in one inexact dtype (weights stays None if it is)."""
    a = _inexact(a)[0]
    if weights is None:
        return a, None
    a, weights = _inexact(a, weights)
    if not fits(a, weights):
        raise u.ShapeError(f"histogram: {message}")
    return a, weights


def _histogram_counts(samples, edges, weights):
    """Summed weights per bin of the grid the edges make (values on the last edge count in the
    last bin; values outside drop)."""
    positions = []
    for x, e in zip(samples, edges):
        index = searchsorted(e, x, side="right")
        positions.append(where(bind("eq", x, e[-1]), bind("sub", index, 1), index))
    sizes = tuple(u.shape(e)[0] + 1 for e in edges)  # an under- and an overflow bin each side
    flat = ravel_multi_index(tuple(positions), sizes)
    hist = bincount(reshape(flat, (-1,)), None if weights is None else reshape(weights, (-1,)),
                    length=math.prod(sizes))
    return reshape(hist, sizes)[tuple(slice(1, -1) for _ in sizes)]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    sample, weights = _weighted(sample, weights, lambda s, w: u.shape(w) == u.shape(s)[:1],
                                "there must be one weight per sample")
    n, d = u.shape(sample)
    if range is not None and len(range) != d:
        raise u.ShapeError(f"histogramdd: range needs {d} pairs (or Nones)")
    per_dim = list(bins) if np.ndim(bins) == 1 and len(bins) == d and not u.is_abstract(bins) \
        else [bins] * d
    if isinstance(bins, (list, tuple)) and len(bins) != d:
        raise u.ShapeError(f"histogramdd: bins needs one entry per dimension ({d})")
    columns = [sample[:, i] for i in builtins.range(d)]
    edges = [histogram_bin_edges(c, b, None if range is None else range[i])
             for i, (c, b) in enumerate(zip(columns, per_dim))]
    hist = _histogram_counts(columns, edges, weights)
    if density:
        hist = bind("convert", hist, dtype=u.dtype_of(sample).name)
        hist = bind("div", hist, bind("reduce_sum", hist, axes=tuple(builtins.range(d))))
        for axis, e in enumerate(edges):
            widths = diff(e)
            hist = bind("div", hist, reshape(widths, tuple(-1 if i == axis else 1
                                                           for i in builtins.range(d))))
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    sample = transpose(asarray([_as_operand(x), _as_operand(y)]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation through (xp, fp); left/right may be 'extrapolate'."""
    x, xp = _inexact(x, xp)
    fp = _inexact(fp)[0]
    if u.ndim(xp) != 1 or u.shape(xp) != u.shape(fp):
        raise u.ShapeError("interp: xp and fp must be 1-D arrays of equal length")
    for name, value in (("left", left), ("right", right)):
        if isinstance(value, str) and value != "extrapolate":
            raise u.DtypeError(f"interp: the only string {name}= is 'extrapolate', not {value!r}")
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
    n = u.shape(xp)[0]
    i = bind("clamp", 1, searchsorted(xp, x, side="right"), n - 1)
    below = bind("sub", i, 1)
    x0, f0 = xp[below], fp[below]
    dx, df = bind("sub", xp[i], x0), bind("sub", fp[i], f0)
    tiny = bind("le", bind("abs", dx), float(np.spacing(np.finfo(u.dtype_of(xp)).eps)))
    slope = bind("div", df, where(tiny, 1, dx))
    out = where(tiny, f0, bind("add", f0, bind("mul", bind("sub", x, x0), slope)))
    if period is None and left != "extrapolate":
        out = where(bind("lt", x, xp[0]), fp[0] if left is None else _as_operand(left), out)
    if period is None and right != "extrapolate":
        out = where(bind("gt", x, xp[-1]), fp[-1] if right is None else _as_operand(right), out)
    return out


def _periodic(x, xp, fp, period):
    from ._elementwise import remainder
    from ._joining import concatenate
    from ._selection import argsort
    if np.ndim(period) != 0:
        raise u.ShapeError("interp: period must be a scalar")
    period = bind("abs", _as_operand(period))
    x, xp = remainder(x, period), remainder(xp, period)
    order = argsort(xp)
    xp, fp = xp[order], fp[order]
    xp = concatenate([bind("sub", xp[-1:], period), xp, bind("add", xp[:1], period)])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return x, xp, fp
