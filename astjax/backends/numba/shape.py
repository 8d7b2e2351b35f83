"""Lowerings of the shape primitives: NumPy views made contiguous, or loops for pad."""

from .emit import LOWER, as_dtype, dtype_text, tuple_text
from .layout import out_aval, reshape_to


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


LOWER.set("reshape", lower_reshape)
LOWER.set("transpose", lower_transpose)
LOWER.set("broadcast_in_dim", lower_broadcast_in_dim)
LOWER.set("rev", lower_rev)
LOWER.set("slice", lower_slice)
LOWER.set("concatenate", lower_concatenate)
LOWER.set("pad", lower_pad)
