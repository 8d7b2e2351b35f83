"""Indexing: gathers and scatters with JAX's index rules (reads clamp, negative indices count
from the end; scatters drop out-of-range indices), dynamic slices as StableHLO's."""
import numpy as np

from .emit import LOWER, i64_array


def _wrap(body, index, size):
    """Negative indices counted from the end, as int64."""
    index = body.convert(index, np.int64)
    size_c = body.constant(size, np.int64, index.shape)
    zero = body.constant(0, np.int64, index.shape)
    return body.select(body.compare(index, zero, "LT"), body.binary("stablehlo.add", index, size_c),
                       index)


def _clamp(body, index, size):
    low = body.constant(0, np.int64, index.shape)
    high = body.constant(max(int(size) - 1, 0), np.int64, index.shape)
    return body.op1("stablehlo.clamp", [low, _wrap(body, index, size), high], index.shape, np.int64)


def _dims(values) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def gather(body, x, indices, offset_dims, collapsed, start_index_map, slice_sizes, out_shape):
    """`stablehlo.gather` with the index vector as the last axis of `indices`."""
    numbers = (f"#stablehlo.gather<offset_dims = {_dims(offset_dims)}, "
               f"collapsed_slice_dims = {_dims(collapsed)}, "
               f"start_index_map = {_dims(start_index_map)}, "
               f"index_vector_dim = {indices.ndim - 1}>")
    return body.op1("stablehlo.gather", [x, indices], out_shape, x.dtype,
                    f"dimension_numbers = {numbers}, slice_sizes = {i64_array(slice_sizes)}, "
                    f"indices_are_sorted = false", hint="gather")


@LOWER.register("take")
def _take(body, eqn, x, index):
    axis = eqn.params["axis"]
    out = eqn.outs[0].aval
    index = body.reshape(_clamp(body, index, x.shape[axis]), index.shape + (1,))
    offset = list(range(axis)) + list(range(axis + index.ndim - 1, out.ndim))
    sizes = [1 if a == axis else d for a, d in enumerate(x.shape)]
    return [gather(body, x, index, offset, [axis], [axis], sizes, out.shape)]


def _full_index(body, x_shape, index, axis, shape):
    """(..., rank) indices addressing x at every position of `shape`: the given index along
    `axis`, the position itself along the others (0 where x has size 1)."""
    parts = []
    for a in range(len(x_shape)):
        if a == axis:
            part = body.broadcast(index, shape)
        elif x_shape[a] == 1:
            part = body.constant(0, np.int64, shape)
        else:
            part = body.op1("stablehlo.iota", [], shape, np.int64, f"iota_dimension = {a} : i64")
        parts.append(body.reshape(part, tuple(shape) + (1,)))
    return body.op1("stablehlo.concatenate", parts, tuple(shape) + (len(x_shape),), np.int64,
                    f"dimension = {len(shape)} : i64")


@LOWER.register("take_along_axis")
def _take_along_axis(body, eqn, x, index):
    axis = eqn.params["axis"]
    out = eqn.outs[0].aval
    index = _clamp(body, index, x.shape[axis])
    full = _full_index(body, x.shape, index, axis, out.shape)
    return [gather(body, x, full, [], range(x.ndim), range(x.ndim), [1] * x.ndim, out.shape)]


def scatter(body, x, indices, updates, window_dims, inserted, to_operand, combine):
    """`stablehlo.scatter` (index vector last); `combine` is None to replace, else the name of
    the operation merging old and new values."""
    region = body.region([(x.dtype, ())] * 2)
    old, new = region.args
    region.ret([new if combine is None else region.binary(combine, old, new)])
    numbers = (f"#stablehlo.scatter<update_window_dims = {_dims(window_dims)}, "
               f"inserted_window_dims = {_dims(inserted)}, "
               f"scatter_dims_to_operand_dims = {_dims(to_operand)}, "
               f"index_vector_dim = {indices.ndim - 1}>")
    return body.op("stablehlo.scatter", [x, indices, updates], [(x.shape, x.dtype)],
                   f"scatter_dimension_numbers = {numbers}, indices_are_sorted = false, "
                   f"unique_indices = false", [region.text()], hint="scatter")[0]


@LOWER.register("take_along_axis_transpose")
def _take_along_transpose(body, eqn, ct, index):
    p = eqn.params
    axis, shape = p["axis"], tuple(p["shape"])
    out = eqn.outs[0].aval
    index = _clamp(body, index, shape[axis])
    ct = body.convert(ct, out.dtype)
    full = _full_index(body, shape, index, axis, ct.shape)
    zeros = body.constant(0, out.dtype, shape)
    return [scatter(body, zeros, full, ct, [], range(len(shape)), range(len(shape)),
                    "stablehlo.add")]


SCATTER_COMBINE = {"set": None, "add": "stablehlo.add", "mul": "stablehlo.multiply",
                   "min": "stablehlo.minimum", "max": "stablehlo.maximum"}


@LOWER.register("scatter")
def _scatter(body, eqn, x, index, updates):
    """x[..., index, ...] (at `axis`) combined with updates; XLA skips out-of-range indices."""
    axis, mode = eqn.params["axis"], eqn.params["mode"]
    out = eqn.outs[0].aval
    x = body.convert(x, out.dtype)
    index = _wrap(body, index, x.shape[axis])
    rest = x.shape[:axis] + x.shape[axis + 1:]
    moved_shape = index.shape + rest
    updates = body.broadcast(body.convert(updates, out.dtype), moved_shape)
    window = list(range(index.ndim, index.ndim + len(rest)))
    index = body.reshape(index, index.shape + (1,))
    return [scatter(body, x, index, updates, window, [axis], [axis], SCATTER_COMBINE[mode])]


def _starts(body, starts):
    return [body.reshape(body.convert(s, np.int64), ()) for s in starts]


@LOWER.register("dynamic_slice")
def _dynamic_slice(body, eqn, x, *starts):
    sizes = eqn.params["slice_sizes"]
    return [body.op1("stablehlo.dynamic_slice", [x] + _starts(body, starts), sizes, x.dtype,
                     f"slice_sizes = {i64_array(sizes)}")]


@LOWER.register("dynamic_update_slice")
def _dynamic_update_slice(body, eqn, x, update, *starts):
    out = eqn.outs[0].aval
    x = body.convert(x, out.dtype)
    update = body.convert(update, out.dtype)
    return [body.op1("stablehlo.dynamic_update_slice", [x, update] + _starts(body, starts),
                     x.shape, x.dtype)]
