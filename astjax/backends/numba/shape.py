"""Lowerings of the shape primitives: NumPy views made contiguous, or loops for pad."""

from . import values as V
from .emit import LOWER, VIEW, as_dtype, cast, dtype_text, transposed, tuple_text
from .layout import out_aval, reshape_to
from .values import Array, Unrolled, View, mapped


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
    return [f"{outs[0]} = np.ascontiguousarray({transposed(ins[0], perm)})"]


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
        lines.append(f"rt.put({outs[0]}[{dst}], {x}[{src}])")
    return lines


LOWER.set("reshape", lower_reshape)
LOWER.set("transpose", lower_transpose)
LOWER.set("broadcast_in_dim", lower_broadcast_in_dim)
LOWER.set("rev", lower_rev)
LOWER.set("slice", lower_slice)
LOWER.set("concatenate", lower_concatenate)
LOWER.set("pad", lower_pad)


# ---------------------------------------------------------------- index maps (views)
def _view(rule):
    """A view rule from `rule(eqn, base_shape, index) -> base index`."""
    def view(fe, eqn, values):
        base, out = values[0], out_aval(eqn)
        return mapped(out, base, lambda index: rule(eqn, base.shape, index))
    return view


def _reshape_index(eqn, shape, index):
    return V.reshape_index(index, eqn.outs[0].aval.shape, shape)


def view_reshape(fe, eqn, values):
    base, out = values[0], out_aval(eqn)
    if isinstance(base, Array) and base.shape and out.shape and -1 not in out.shape:
        name = fe.own_name(eqn.outs[0], "reshape")
        fe.lines.append(f"{name} = {base.name}.reshape({tuple_text([str(d) for d in out.shape])})")
        return Array(out, name, base.root)
    if -1 in base.shape or -1 in out.shape:
        return None
    return _view(_reshape_index)(fe, eqn, values)


def _transpose_index(eqn, shape, index):
    perm = eqn.params["permutation"]
    base = [0] * len(perm)
    for j, p in enumerate(perm):
        base[p] = index[j]
    return base


def _broadcast_index(eqn, shape, index):
    return [index[dst] if shape[src] != 1 else 0
            for src, dst in enumerate(eqn.params["broadcast_dimensions"])]


def _rev_index(eqn, shape, index):
    axes = set(eqn.params["dimensions"])
    return [V.sub(d - 1, i) if j in axes else i for j, (d, i) in enumerate(zip(shape, index))]


def _slice_index(eqn, shape, index):
    p = eqn.params
    strides = p.get("strides") or (1,) * len(index)
    return [V.add(s, V.mul(i, st)) for s, st, i in zip(p["start_indices"], strides, index)]


def view_pad(fe, eqn, values):
    base, fill, out = values[0], values[1], out_aval(eqn)
    if -1 in base.shape:
        return None
    fill_text = cast(fe.scalar(fill), eqn.ins[1].aval.dtype, out.dtype)
    config = eqn.params["config"]

    def element(index, reader):
        conditions, source = [], []
        for i, d, (lo, hi, interior) in zip(index, base.shape, config):
            step = interior + 1
            shifted = V.sub(i, lo)
            if lo == hi == interior == 0:  # an axis with no padding: every position reads
                source.append(i)
                continue
            if step == 1 and V.guard_holds(i, -lo, d):  # (the interior of a split loop)
                source.append(shifted)
                continue
            if isinstance(shifted, int):
                if shifted < 0 or shifted % step or shifted // step >= d:
                    return fill_text
                source.append(shifted // step)
                continue
            conditions.append(f"0 <= {shifted} < {d * step - interior}")
            if step != 1:
                conditions.append(f"({shifted}) % {step} == 0")
            source.append(V.floordiv(shifted, step))
        value = cast(reader(base, source), eqn.ins[0].aval.dtype, out.dtype)
        if not conditions:
            return value
        return f"({value} if {' and '.join(conditions)} else {fill_text})"
    return View(out, element, [base])


def view_concatenate(fe, eqn, values):
    out, axis = out_aval(eqn), eqn.params["dimension"]
    if any(-1 in v.shape for v in values):
        return None
    starts, at = [], 0
    for v in values:
        starts.append(at)
        at += v.shape[axis]

    def piece(k, index, reader):
        shifted = list(index)
        shifted[axis] = V.sub(index[axis], starts[k])
        return cast(reader(values[k], shifted), eqn.ins[k].aval.dtype, out.dtype)

    def element(index, reader):
        i = index[axis]
        live = [k for k, v in enumerate(values) if v.shape[axis] > 0]
        if isinstance(i, int):
            k = max(k for k in live if starts[k] <= i)
            return piece(k, index, reader)
        text = piece(live[-1], index, reader)
        for k in reversed(live[:-1]):
            text = f"({piece(k, index, reader)} if {i} < {starts[k] + values[k].shape[axis]} else {text})"
        return text
    return View(out, element, values)


VIEW.set("reshape", view_reshape)
def view_transpose(fe, eqn, values):
    view = _view(_transpose_index)(fe, eqn, values)
    view.transposed = (values[0], tuple(eqn.params["permutation"]))
    return view


VIEW.set("transpose", view_transpose)
def view_broadcast_in_dim(fe, eqn, values):
    view = _view(_broadcast_index)(fe, eqn, values)
    if isinstance(values[0], Unrolled) and not values[0].shape:
        view.fill = values[0].elems[0]
    return view


VIEW.set("broadcast_in_dim", view_broadcast_in_dim)
VIEW.set("rev", _view(_rev_index))
VIEW.set("slice", _view(_slice_index))
VIEW.set("pad", view_pad)
VIEW.set("concatenate", view_concatenate)
