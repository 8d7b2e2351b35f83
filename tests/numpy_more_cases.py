"""Programs using the rest of jax.numpy (NaN reductions, quantiles, polynomials, histograms,
set operations with size=, bit functions, windows...), written against JAX's API: the tests run
each on JAX and on every astjax backend. Each takes a float64 vector x of 12 values in (-2, 2)
(with x[3] a NaN for the nan_ ones) and returns a tuple of arrays."""
import jax.numpy as jnp
import numpy as np


def nan_reductions(x):
    m = x.reshape(3, 4)
    return (jnp.nansum(m, axis=0), jnp.nanprod(m, axis=1), jnp.nanmax(m), jnp.nanmin(m, axis=1),
            jnp.nanargmax(m, axis=1), jnp.nanargmin(m), jnp.nanmean(m, axis=0),
            jnp.nanvar(m, axis=1, ddof=1), jnp.nanstd(m), jnp.nancumsum(m, axis=1),
            jnp.nancumprod(x), jnp.nanmedian(m, axis=1), jnp.nanquantile(x, 0.3),
            jnp.nanpercentile(m, jnp.array([10.0, 90.0]), axis=0))


def quantiles(x):
    m = x.reshape(3, 4)
    q = jnp.array([0.0, 0.25, 0.6, 1.0])
    return (jnp.quantile(m, q, axis=1), jnp.quantile(x, 0.3, method="lower"),
            jnp.quantile(x, 0.3, method="higher"), jnp.quantile(x, 0.3, method="midpoint"),
            jnp.quantile(x, 0.35, method="nearest"), jnp.median(m, axis=(0, 1), keepdims=True),
            jnp.percentile(m, 40.0, axis=0, keepdims=True), jnp.median(m, axis=0))


def polynomials(x):
    p = x[:4]
    q = x[4:7]
    div, rem = jnp.polydiv(p, q)
    return (jnp.polyval(p, x), jnp.polyadd(p, q), jnp.polysub(q, p), jnp.polymul(p, q),
            jnp.polyder(p), jnp.polyder(p, 2), jnp.polyint(q), jnp.polyint(q, 2, k=3.0), div, rem,
            jnp.poly(q), jnp.vander(q), jnp.vander(q, 4, increasing=True),
            jnp.polyfit(x, 2.0 * x ** 2 - x + 0.5 + 0.1 * jnp.sin(7 * x), 2))


def calculus(x):
    m = x.reshape(3, 4)
    t = jnp.cumsum(jnp.abs(x)) + 0.1
    gx, gy = jnp.gradient(m)
    return (jnp.gradient(x), jnp.gradient(x, 0.5), jnp.gradient(x ** 2, t), gx, gy,
            jnp.trapezoid(x), jnp.trapezoid(x, t), jnp.trapezoid(m, dx=0.3, axis=0),
            jnp.ediff1d(x, to_begin=jnp.array([9.0]), to_end=1.0), jnp.unwrap(4 * x),
            jnp.cov(m), jnp.cov(x[:6], x[6:]), jnp.cov(m, rowvar=False, ddof=0),
            jnp.cov(m, aweights=jnp.abs(x[:4]) + 0.5), jnp.corrcoef(m))


def binning(x):
    edges = jnp.array([-1.5, -0.5, 0.0, 0.7, 1.9])
    counts, bin_edges = jnp.histogram(x, bins=5, range=(-2.0, 2.0))
    wcounts, _ = jnp.histogram(x, bins=edges, weights=x ** 2, density=True)
    h2, ex, ey = jnp.histogram2d(x[:6], x[6:], bins=3)
    ints = (jnp.abs(x) * 3).astype(jnp.int32)
    return (counts, bin_edges, wcounts, h2, ex, ey, jnp.histogram_bin_edges(x, 4),
            jnp.digitize(x, edges), jnp.digitize(x, edges[::-1], right=True),
            jnp.bincount(ints, length=8), jnp.bincount(ints, weights=x, length=5),
            jnp.interp(x, edges, edges ** 2), jnp.interp(x, edges, edges, left=-9.0, right=9.0),
            jnp.interp(x, edges, jnp.cos(edges), period=2.0))


def sets_with_size(x):
    r = jnp.round(x * 2)
    values, counts = jnp.unique_counts(r, size=6, fill_value=-9.0)
    u, index, inverse = jnp.unique(r, return_index=True, return_inverse=True, size=5)
    return (values, counts, u, index, inverse, jnp.unique_values(r, size=4),
            jnp.isin(r, jnp.array([0.0, 1.0])), jnp.isin(r, r[:3], invert=True),
            jnp.union1d(r[:6], r[6:], size=8, fill_value=0.0),
            jnp.intersect1d(r[:6], r[6:], size=4, fill_value=0.0),
            jnp.setdiff1d(r[:6], r[6:], size=4, fill_value=0.0),
            jnp.setxor1d(r[:6], r[6:], size=5, fill_value=0.0),
            jnp.nonzero(r > 0, size=7, fill_value=-1)[0], jnp.flatnonzero(r, size=4),
            jnp.argwhere(r.reshape(3, 4) > 0, size=5), jnp.where(r < 0, size=3)[0],
            jnp.extract(r > 0, x, size=6))


def floating_bits(x):
    big = x * jnp.array([1e-300, 1e300, 1.0, 0.0, 3.0, 1e-20, 7.0, 1e5, 2.0, 0.5, 1e-5, 1.0])
    mantissa, exponent = jnp.frexp(big)
    whole_frac = jnp.modf(x * 3)
    return (mantissa, exponent, jnp.ldexp(x, exponent), jnp.ldexp(x, jnp.arange(12) * 90 - 500),
            jnp.nextafter(big, x), jnp.nextafter(x, 0.0), jnp.spacing(big), whole_frac[0],
            whole_frac[1], jnp.i0(4 * x), jnp.i0(9 * x))


def integer_bits(x):
    a = (x * 40).astype(jnp.int32)
    b = (x[::-1] * 25).astype(jnp.int64)
    u8 = (jnp.abs(x) * 100).astype(jnp.uint8)
    return (jnp.gcd(a, b), jnp.lcm(a, b), jnp.bitwise_count(a), jnp.bitwise_count(b),
            jnp.bitwise_left_shift(a, 2), jnp.bitwise_right_shift(b, 1),
            jnp.packbits(u8 > 50), jnp.packbits((u8 > 50).reshape(3, 4), axis=1, bitorder="little"),
            jnp.unpackbits(u8[:3]), jnp.unpackbits(u8[:4].reshape(2, 2), axis=0, count=12))


def windows(x):
    return (jnp.bartlett(7), jnp.blackman(8), jnp.hamming(5), jnp.hanning(9), jnp.kaiser(10, 4.5),
            jnp.kaiser(6, x[1] + 3.0), jnp.hanning(1), jnp.geomspace(1.0, 1000.0, 4),
            jnp.geomspace(-2.0, -64.0, 6, endpoint=False))


def rearranging(x):
    m = x.reshape(3, 4)
    c = x.reshape(2, 3, 2)
    return (jnp.rot90(m), jnp.rot90(m, 2), jnp.rot90(c, -1, axes=(1, 2)), jnp.rollaxis(c, 2),
            jnp.rollaxis(c, 0, 3), jnp.permute_dims(c, (1, 0, 2)), jnp.resize(x[:5], (3, 4)),
            jnp.unstack(m)[1], jnp.unstack(c, axis=2)[0], jnp.dsplit(c, 2)[1],
            jnp.block([[m, m[:, :1]], [m[:1], jnp.ones((1, 1))]]), jnp.concat([x, x], axis=0),
            jnp.insert(x, 2, 9.0), jnp.insert(m, jnp.array([1, 3]), jnp.array([7.0, 8.0]), axis=1),
            jnp.insert(m, 1, x[:4], axis=0), jnp.delete(x, np.array([0, 5, 6])),
            jnp.delete(m, slice(1, 3), axis=1), jnp.delete(m, 1, axis=0))


def selecting(x):
    m = x.reshape(3, 4)
    ints = (jnp.abs(x) * 2).astype(jnp.int32)
    rows, cols = jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))
    return (jnp.lexsort((x, jnp.round(x))), jnp.choose(ints[:4], [x[:4], -x[:4], 2 * x[:4]], mode="wrap"),
            jnp.choose(ints[:4], [x[:4], -x[:4]], mode="clip"),
            jnp.put(x, jnp.array([0, 3, 40]), jnp.array([5.0, 6.0]), inplace=False),
            jnp.put_along_axis(m, jnp.argmax(m, axis=1, keepdims=True), 0.0, axis=1,
                               inplace=False),
            jnp.place(x, x > 0, jnp.array([1.0, 2.0, 3.0]), inplace=False),
            jnp.fill_diagonal(m, 7.0, inplace=False), m[rows, cols],
            jnp.tril_indices_from(m)[1], jnp.triu_indices_from(m, 1)[0],
            jnp.diag_indices_from(m[:3, :3])[0], jnp.partition(x, 4)[4],
            jnp.argpartition(x, 3)[3], jnp.sort_complex(x), jnp.matvec(m, x[:4]),
            jnp.vecmat(x[:3], m), jnp.array_equiv(m, m[0]), jnp.array_equiv(m[0], x[:4]))


def mapping(x):
    m = x.reshape(3, 4)

    def clipped_square(v):
        return jnp.where(v > 0, v * v, -v)

    def outer_sum(a, b):
        return a[:, None] + b[None, :]

    def first_and_last(row):
        return jnp.stack([row[0], row[-1]])

    piece = jnp.piecewise(x, [x < -0.5, x > 0.5], [lambda v: v ** 2, lambda v: -v, 0.25])
    return (jnp.vectorize(clipped_square)(m),
            jnp.vectorize(outer_sum, signature="(n),(m)->(n,m)")(m, x[:2]),
            jnp.apply_along_axis(first_and_last, 1, m), jnp.apply_along_axis(jnp.sum, 0, m),
            jnp.apply_over_axes(jnp.sum, m, [0, 1]), piece,
            jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=jnp.float64) + x[0])


def padding(x):
    """The modes that copy the array's elements (widths beyond the axis's length included),
    the statistic modes, linear ramps and empty (zeros, as JAX pads)."""
    m = x.reshape(3, 4)
    return (jnp.pad(m, ((1, 2), (3, 0)), mode="edge"), jnp.pad(m, 2, mode="wrap"),
            jnp.pad(m, ((2, 7), (1, 1)), mode="reflect"), jnp.pad(x, (5, 13), mode="symmetric"),
            jnp.pad(x[:1], 3, mode="reflect"), jnp.pad(x[:2], (4, 1), mode="wrap"),
            jnp.pad(m, ((1, 2), (2, 0)), mode="maximum"), jnp.pad(m, 1, mode="minimum"),
            jnp.pad(m, 2, mode="mean", stat_length=2), jnp.pad(m, ((0, 1), (3, 1)), mode="median"),
            jnp.pad(m, ((2, 3), (1, 2)), mode="linear_ramp", end_values=(-1.0, 4.0)),
            jnp.pad(m, 1, mode="empty") * 0.0)


def with_defaults(x, axis=1, widths=((1, 0), (0, 2)), scale=0.5):
    """Parameters a call leaves to their defaults keep them as Python values (an axis, pad
    widths), as under JAX's jit."""
    return jnp.sum(jnp.pad(x.reshape(3, 4), widths, mode="edge"), axis) * scale


CASES = [nan_reductions, quantiles, polynomials, calculus, binning, sets_with_size,
         floating_bits, integer_bits, windows, rearranging, selecting, mapping,
         padding, with_defaults]
NAN_CASES = {nan_reductions}
