"""Creation: iota and full."""
from .emit import LOWER


@LOWER.register("iota")
def _iota(body, eqn, *_):
    p = eqn.params
    return [body.op1("stablehlo.iota", [], p["shape"], p["dtype"],
                     f"iota_dimension = {p['dimension']} : i64")]


@LOWER.register("full")
def _full(body, eqn, value):
    p = eqn.params
    return [body.broadcast(body.convert(value, p["dtype"]), p["shape"])]
