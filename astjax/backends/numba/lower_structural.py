"""Numba lowerings of reductions, shapes, creation and sorting.

Each rule returns source lines binding its outputs (see numba_lowering's contract: 0-d values
are scalars, other values C-contiguous arrays of their aval's dtype).  Axis operations view
their operand as rows (kept, reduced) or blocks (before, axis, after), free reshapes of a
contiguous array, and call the matching `rt` helper.
"""
import numpy as np

from astjax.core.primitives import register

from .emit import as_dtype, cast, dims, dtype_text, product, scalar_literal, tuple_text


def out_aval(eqn, k: int = 0):
    return eqn.outs[k].aval


def reshape_to(name: str, shape: list) -> str:
    """`name` reshaped to `shape` (texts); a 0-d result is the single element, a scalar."""
    if not shape:
        return f"{name}.reshape({name}.size)[0]"
    return f"{name}.reshape({tuple_text(shape)})"


def rows(fe, name: str, aval, reduced: tuple) -> tuple:
    """(lines, view, kept dims, reduced dims): `name` as a 2-D (kept, reduced) array, copying
    only when the reduced axes are not already the trailing ones."""
    kept = [j for j in range(aval.ndim) if j not in reduced]
    d = dims(name, aval)
    kept_dims, red_dims = [d[j] for j in kept], [d[j] for j in reduced]
    view = fe.fresh(name + "_rows")
    shape = f"({product(kept_dims)}, {product(red_dims)})"  # product([]) is "1"
    order = kept + list(reduced)
    if order == sorted(order):
        return [f"{view} = {name}.reshape({shape})"], view, kept_dims, red_dims
    perm = tuple_text([str(j) for j in order])
    return ([f"{view} = np.ascontiguousarray({name}.transpose({perm})).reshape({shape})"],
            view, kept_dims, red_dims)


def blocks(name: str, aval, axis: int) -> str:
    """`name` as a 3-D (before, axis, after) view: a free reshape of a contiguous array."""
    d = dims(name, aval)
    before, after = product(d[:axis]), product(d[axis + 1:])
    return f"{name}.reshape(({before}, {d[axis]}, {after}))"


# ---------------------------------------------------------------- reductions
# primitive -> (helper, start value of the accumulator, accumulate float32 in float64?)
REDUCTIONS = {"reduce_sum": ("sum_rows", 0, True), "reduce_prod": ("prod_rows", 1, True),
              "reduce_max": ("max_rows", None, False), "reduce_min": ("min_rows", None, False),
              "reduce_and": ("all_rows", True, False), "reduce_or": ("any_rows", False, False)}


def _reduction(helper, start, widen):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axes = tuple(eqn.params["axes"])
        if not axes or aval.shape == ():
            return [f"{outs[0]} = {as_dtype(x, aval, out.dtype)}"]
        lines, view, kept, _ = rows(fe, x, aval, axes)
        acc_dtype = np.float64 if widen and out.dtype == np.float32 else out.dtype
        acc = fe.fresh(outs[0] + "_acc")
        size = product(kept)
        if start is None:
            lines.append(f"{acc} = np.empty({size}, {dtype_text(acc_dtype)})")
        else:
            lines.append(f"{acc} = np.full({size}, {scalar_literal(start, acc_dtype)})")
        lines.append(f"rt.{helper}({view}, {acc})")
        lines.append(f"{outs[0]} = {_from_accumulator(acc, acc_dtype, out.dtype, kept)}")
        return lines
    return lower


def _from_accumulator(acc: str, acc_dtype, dtype, kept: list) -> str:
    """The 1-D accumulator as the reduction's result: its dtype, the kept shape."""
    if not kept:
        return cast(f"{acc}[0]", acc_dtype, dtype)
    if np.dtype(acc_dtype) != np.dtype(dtype):
        acc = f"{acc}.astype({dtype_text(dtype)})"
    return acc if len(kept) == 1 else f"{acc}.reshape({tuple_text(kept)})"


for _prim, (_helper, _start, _widen) in REDUCTIONS.items():
    register("numba", _prim, _reduction(_helper, _start, _widen))


def _arg_reduction(helper):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        lines, view, kept, _ = rows(fe, x, aval, (eqn.params["axis"],))
        result = fe.fresh(outs[0] + "_flat")
        lines += [f"{result} = np.empty({product(kept)}, {dtype_text(out.dtype)})",
                  f"rt.{helper}({view}, {result})",
                  f"{outs[0]} = {_from_accumulator(result, out.dtype, out.dtype, kept)}"]
        return lines
    return lower


register("numba", "argmax", _arg_reduction("argmax_rows"))
register("numba", "argmin", _arg_reduction("argmin_rows"))

CUMULATIVE_OPS = {"cumsum": "rt.ADD", "cumprod": "rt.MUL", "cummax": "rt.MAX", "cummin": "rt.MIN"}


def _cumulative(op):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axis = eqn.params["axis"]
        return [f"{outs[0]} = np.empty({x}.shape, {dtype_text(out.dtype)})",
                f"rt.cumulative({op}, {blocks(x, aval, axis)}, {blocks(outs[0], out, axis)}, "
                f"{bool(eqn.params.get('reverse', False))})"]
    return lower


for _prim, _op in CUMULATIVE_OPS.items():
    register("numba", _prim, _cumulative(_op))


# ---------------------------------------------------------------- shapes
def lower_reshape(fe, eqn, ins, outs):
    x, aval = ins[0], eqn.ins[0].aval
    new = [str(d) for d in eqn.params["new_sizes"]]
    if aval.shape == ():
        return [f"{outs[0]} = np.full({tuple_text(new)}, {x})" if new else f"{outs[0]} = {x}"]
    return [f"{outs[0]} = {reshape_to(x, new)}"]


def lower_transpose(fe, eqn, ins, outs):
    perm = list(eqn.params["permutation"])
    if perm == sorted(perm):
        return [f"{outs[0]} = {ins[0]}"]
    return [f"{outs[0]} = np.ascontiguousarray({ins[0]}.transpose({tuple_text([str(j) for j in perm])}))"]


def lower_broadcast_in_dim(fe, eqn, ins, outs):
    x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
    shape = tuple_text([str(d) for d in out.shape])
    if aval.shape == ():
        if not out.shape:
            return [f"{outs[0]} = {x}"]
        return [f"{outs[0]} = np.full({shape}, {x}, {dtype_text(out.dtype)})"]
    expanded = ["1"] * out.ndim
    for src, dst in enumerate(eqn.params["broadcast_dimensions"]):
        expanded[dst] = str(aval.shape[src])
    return [f"{outs[0]} = np.ascontiguousarray(np.broadcast_to("
            f"{x}.reshape({tuple_text(expanded)}), {shape}))"]


def lower_rev(fe, eqn, ins, outs):
    axes = set(eqn.params["dimensions"])
    index = ", ".join("::-1" if j in axes else ":" for j in range(eqn.ins[0].aval.ndim))
    return [f"{outs[0]} = np.ascontiguousarray({ins[0]}[{index}])"]


def lower_slice(fe, eqn, ins, outs):
    p = eqn.params
    strides = p.get("strides") or (1,) * len(p["start_indices"])
    index = ", ".join(f"{s}:{l}" + (f":{st}" if st != 1 else "")
                      for s, l, st in zip(p["start_indices"], p["limit_indices"], strides))
    return [f"{outs[0]} = np.ascontiguousarray({ins[0]}[{index}])"]


def lower_concatenate(fe, eqn, ins, outs):
    out = out_aval(eqn)
    parts = [as_dtype(x, a.aval, out.dtype) for x, a in zip(ins, eqn.ins)]
    return [f"{outs[0]} = np.concatenate({tuple_text(parts)}, axis={eqn.params['dimension']})"]


def _pad_axis(d: int, lo: int, hi: int, interior: int):
    """(source slice, destination slice) of one axis, or None when no element lands."""
    step = interior + 1
    size = lo + hi + d + max(d - 1, 0) * interior
    first = 0
    while first < d and lo + first * step < 0:
        first += 1
    last = d
    while last > first and lo + (last - 1) * step >= size:
        last -= 1
    if last <= first:
        return None
    start, stop = lo + first * step, lo + (last - 1) * step + 1
    return f"{first}:{last}", f"{start}:{stop}" + (f":{step}" if step != 1 else "")


def lower_pad(fe, eqn, ins, outs):
    x, value, out = ins[0], ins[1], out_aval(eqn)
    fill = as_dtype(value, eqn.ins[1].aval, out.dtype)
    lines = [f"{outs[0]} = np.full({tuple_text([str(d) for d in out.shape])}, {fill}, "
             f"{dtype_text(out.dtype)})"]
    axes = [_pad_axis(d, *c) for d, c in zip(eqn.ins[0].aval.shape, eqn.params["config"])]
    if all(a is not None for a in axes):
        src = ", ".join(a[0] for a in axes)
        dst = ", ".join(a[1] for a in axes)
        lines.append(f"{outs[0]}[{dst}] = {x}[{src}]")
    return lines


register("numba", "reshape", lower_reshape)
register("numba", "transpose", lower_transpose)
register("numba", "broadcast_in_dim", lower_broadcast_in_dim)
register("numba", "rev", lower_rev)
register("numba", "slice", lower_slice)
register("numba", "concatenate", lower_concatenate)
register("numba", "pad", lower_pad)


# ---------------------------------------------------------------- creation
def lower_iota(fe, eqn, ins, outs):
    p = eqn.params
    shape, dim = list(p["shape"]), p["dimension"]
    arange = f"np.arange({shape[dim]}).astype({dtype_text(p['dtype'])})"
    if len(shape) == 1:
        return [f"{outs[0]} = {arange}"]
    expanded = ["1"] * len(shape)
    expanded[dim] = str(shape[dim])
    return [f"{outs[0]} = np.ascontiguousarray(np.broadcast_to({arange}.reshape("
            f"{tuple_text(expanded)}), {tuple_text([str(d) for d in shape])}))"]


def lower_full(fe, eqn, ins, outs):
    out = out_aval(eqn)
    value = as_dtype(ins[0], eqn.ins[0].aval, out.dtype)
    if not out.shape:
        return [f"{outs[0]} = {value}"]
    return [f"{outs[0]} = np.full({tuple_text([str(d) for d in out.shape])}, {value}, "
            f"{dtype_text(out.dtype)})"]


register("numba", "iota", lower_iota)
register("numba", "full", lower_full)


# ---------------------------------------------------------------- sorting
def _sorting(helper):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axis = eqn.params["dimension"]
        lines, view, kept, red = rows(fe, x, aval, (axis,))
        result = fe.fresh(outs[0] + "_rows")
        lines += [f"{result} = np.empty({view}.shape, {dtype_text(out.dtype)})",
                  f"rt.{helper}({view}, {result})"]
        if axis == aval.ndim - 1:
            lines.append(f"{outs[0]} = {result}.reshape({x}.shape)")
            return lines
        moved = [j for j in range(aval.ndim) if j != axis] + [axis]
        back = [moved.index(j) for j in range(aval.ndim)]
        moved_shape = tuple_text([dims(x, aval)[j] for j in moved])
        lines.append(f"{outs[0]} = np.ascontiguousarray({result}.reshape({moved_shape})"
                     f".transpose({tuple_text([str(j) for j in back])}))")
        return lines
    return lower


register("numba", "sort", _sorting("sort_rows"))
register("numba", "argsort", _sorting("argsort_rows"))
