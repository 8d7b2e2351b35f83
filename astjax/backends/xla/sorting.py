"""Sorting: a stable `stablehlo.sort` along one dimension, NaNs last (NumPy's order)."""
import numpy as np

from .elementwise import lexicographic
from .emit import LOWER


def _sort(body, operands, dimension, hint):
    """Sorts `operands` by the first one; returns all of them sorted."""
    key = operands[0]
    region = body.region([(v.dtype, ()) for v in operands for _ in range(2)])
    a, b = region.args[0], region.args[1]
    if key.dtype.kind in "fc":  # a before b: a < b, or b is NaN and a is not
        a_nan, b_nan = region.compare(a, a, "NE"), region.compare(b, b, "NE")
        ordered = lexicographic(region, a, b, "LT", (), key.dtype) if key.dtype.kind == "c" \
            else region.compare(a, b, "LT")
        less = region.binary("stablehlo.or", ordered,
                             region.binary("stablehlo.and", b_nan, region.unary("stablehlo.not", a_nan)))
    else:
        less = region.compare(a, b, "LT")
    region.ret([less])
    return body.op("stablehlo.sort", list(operands), [(v.shape, v.dtype) for v in operands],
                   f"dimension = {dimension} : i64, is_stable = true", [region.text()], hint=hint)


@LOWER.register("sort")
def _sort_values(body, eqn, x):
    return [_sort(body, [x], eqn.params["dimension"], "sort")[0]]


@LOWER.register("argsort")
def _argsort(body, eqn, x):
    dimension = eqn.params["dimension"]
    index = body.op1("stablehlo.iota", [], x.shape, np.int64, f"iota_dimension = {dimension} : i64")
    _, order = _sort(body, [x, index], dimension, "argsort")
    return [body.convert(order, eqn.params["index_dtype"])]
