"""Shape primitives: each is one StableHLO operation."""
from .tape import MovedTape, Tape, transpose_tape
from .emit import LOWER, i64_array


def _out(eqn):
    return eqn.outs[0].aval


@LOWER.register("broadcast_in_dim")
def _broadcast_in_dim(body, eqn, x):
    p = eqn.params
    return [body.broadcast_in_dim(x, p["shape"], p["broadcast_dimensions"])]


@LOWER.register("reshape")
def _reshape(body, eqn, x):
    return [body.reshape(x, eqn.params["new_sizes"])]


@LOWER.register("transpose")
def _transpose(body, eqn, x):
    if isinstance(x, (Tape, MovedTape)):  # a batched gradient's tape, lanes moved first
        return [transpose_tape(body, x, eqn.params["permutation"])]
    return [body.transpose(x, eqn.params["permutation"])]


@LOWER.register("rev")
def _rev(body, eqn, x):
    return [body.op1("stablehlo.reverse", [x], x.shape, x.dtype,
                     f"dimensions = {i64_array(eqn.params['dimensions'])}")]


@LOWER.register("slice")
def _slice(body, eqn, x):
    p = eqn.params
    strides = p.get("strides") or (1,) * x.ndim
    return [body.op1("stablehlo.slice", [x], _out(eqn).shape, x.dtype,
                     f"start_indices = {i64_array(p['start_indices'])}, "
                     f"limit_indices = {i64_array(p['limit_indices'])}, "
                     f"strides = {i64_array(strides)}")]


@LOWER.register("pad")
def _pad(body, eqn, x, value):
    config = eqn.params["config"]
    out = _out(eqn)
    x = body.convert(x, out.dtype)
    value = body.reshape(body.convert(value, out.dtype), ())
    return [body.op1("stablehlo.pad", [x, value], out.shape, out.dtype,
                     f"edge_padding_low = {i64_array([c[0] for c in config])}, "
                     f"edge_padding_high = {i64_array([c[1] for c in config])}, "
                     f"interior_padding = {i64_array([c[2] for c in config])}")]


@LOWER.register("concatenate")
def _concatenate(body, eqn, *xs):
    out = _out(eqn)
    xs = [body.convert(x, out.dtype) for x in xs]
    return [body.op1("stablehlo.concatenate", xs, out.shape, out.dtype,
                     f"dimension = {eqn.params['dimension']} : i64")]
