"""Reductions: `stablehlo.reduce` with the combining operation as its region; argmax/argmin as
a reduction of (value, index) pairs; running reductions as a `reduce_window` over a prefix."""
import numpy as np

from .emit import LOWER, i64_array

MONOIDS = {  # primitive -> (combining operation, identity for the dtype)
    "reduce_sum": ("stablehlo.add", lambda dt: 0),
    "reduce_prod": ("stablehlo.multiply", lambda dt: 1),
    "reduce_max": ("stablehlo.maximum", lambda dt: _lowest(dt)),
    "reduce_min": ("stablehlo.minimum", lambda dt: _highest(dt)),
    "reduce_and": ("stablehlo.and", lambda dt: True),
    "reduce_or": ("stablehlo.or", lambda dt: False),
}


def _lowest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf
    return False if dtype.kind == "b" else np.iinfo(dtype).min


def _highest(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.inf
    return True if dtype.kind == "b" else np.iinfo(dtype).max


def _reduction(prim):
    operation, identity = MONOIDS[prim]

    def lower(body, eqn, x):
        out = eqn.outs[0].aval
        x = body.convert(x, out.dtype)
        init = body.constant(identity(out.dtype), out.dtype)
        return body.reduce([x], [init], eqn.params["axes"],
                           lambda r, a, b: [r.binary(operation, a[0], b[0])], hint=prim)
    return lower


for _prim in MONOIDS:
    LOWER.set(_prim, _reduction(_prim))


def _arg_reduction(direction):
    """The first index of the extreme value, a NaN counting as the extreme (NumPy's rule)."""
    def lower(body, eqn, x):
        axis, index_dtype = eqn.params["axis"], np.dtype(eqn.params["index_dtype"])
        index = body.op1("stablehlo.iota", [], x.shape, np.int64,
                         f"iota_dimension = {axis} : i64")

        def combine(r, lefts, rights):
            (a, i), (b, j) = lefts, rights
            a_nan, b_nan = r.compare(a, a, "NE"), r.compare(b, b, "NE")
            better = r.binary("stablehlo.or", r.compare(a, b, direction),
                              r.binary("stablehlo.and", a_nan,
                                       r.unary("stablehlo.not", b_nan)))
            tie = r.binary("stablehlo.or", r.compare(a, b, "EQ"),
                           r.binary("stablehlo.and", a_nan, b_nan))
            first = r.binary("stablehlo.and", tie, r.compare(i, j, "LT"))
            take_left = r.binary("stablehlo.or", better, first)
            return [r.select(take_left, a, b), r.select(take_left, i, j)]
        # the identity loses every comparison and, at index 0, ties only with element 0
        start = body.constant((_lowest if direction == "GT" else _highest)(x.dtype), x.dtype)
        _, found = body.reduce([x, index], [start, body.constant(0, np.int64)], [axis], combine,
                               hint=eqn.prim)
        return [body.convert(found, index_dtype)]
    return lower


LOWER.set("argmax", _arg_reduction("GT"))
LOWER.set("argmin", _arg_reduction("LT"))

RUNNING = {"cumsum": "reduce_sum", "cumprod": "reduce_prod", "cummax": "reduce_max",
           "cummin": "reduce_min"}


def _running(prim):
    """Each element combines the prefix ending at it: a window the length of the axis, padded
    so that it starts before the first element (after the last, reversed)."""
    operation, identity = MONOIDS[RUNNING[prim]]

    def lower(body, eqn, x):
        out = eqn.outs[0].aval
        x = body.convert(x, out.dtype)
        axis, n = eqn.params["axis"], x.shape[eqn.params["axis"]]
        window = [n if a == axis else 1 for a in range(x.ndim)]
        before = [(n - 1, 0) if not eqn.params.get("reverse") else (0, n - 1)]
        padding = [before[0] if a == axis else (0, 0) for a in range(x.ndim)]
        region = body.region([(x.dtype, ())] * 2)
        region.ret([region.binary(operation, region.args[0], region.args[1])])
        pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in padding)
        attrs = (f"window_dimensions = {i64_array(window)}, "
                 f"padding = dense<[{pads}]> : tensor<{x.ndim}x2xi64>")
        init = body.constant(identity(out.dtype), out.dtype)
        return body.op("stablehlo.reduce_window", [x, init], [(x.shape, x.dtype)], attrs,
                       [region.text()], hint=prim)
    return lower


for _prim in RUNNING:
    LOWER.set(_prim, _running(_prim))
