"""Lowerings of the gathers, scatters and dynamic slices: loops over flat indices."""
import numpy as np

from . import values as V
from .emit import LOWER, VIEW, as_dtype, cast, dims, dtype_text, product, scalar_literal
from .values import Unrolled, View, mapped
from .layout import aval_of, blocks, broadcast, flat_index, from_blocks, out_aval, shape_text


def lower_take(fe, eqn, ins, outs):
    (x, index), (xa, ia), out = ins, [a.aval for a in eqn.ins], out_aval(eqn)
    axis = eqn.params["axis"]
    lines = []
    idx = flat_index(fe, index, ia, lines)
    before, after = product(dims(x, xa)[:axis]), product(dims(x, xa)[axis + 1:])
    result = fe.fresh(outs[0] + "_blocks")
    lines += [f"{result} = np.empty(({before}, {idx}.size, {after}), {dtype_text(out.dtype)})",
              f"rt.take({blocks(x, xa, axis)}, {idx}, {result})",
              f"{outs[0]} = {from_blocks(result, out.shape)}"]
    return lines


def _common_other_axes(a, b, axis) -> list:
    """The broadcast of two shapes on every axis but `axis` (which is left as 1)."""
    ones = lambda s: s[:axis] + (1,) + s[axis + 1:]  # noqa: E731
    return list(np.broadcast_shapes(ones(tuple(a.shape)), ones(tuple(b.shape))))


def lower_take_along_axis(fe, eqn, ins, outs):
    (x, index), (xa, ia), out = ins, [a.aval for a in eqn.ins], out_aval(eqn)
    axis = eqn.params["axis"]
    other = _common_other_axes(xa, ia, axis)
    x_shape, i_shape = list(other), list(other)
    x_shape[axis], i_shape[axis] = xa.shape[axis], ia.shape[axis]
    xb, ib = fe.fresh(x + "_b"), fe.fresh("index_b")
    return [f"{xb} = {broadcast(x, xa, x_shape)}",
            f"{ib} = {broadcast(index, ia, i_shape)}",
            f"{outs[0]} = np.empty({shape_text(out.shape)}, {dtype_text(out.dtype)})",
            f"rt.take_along({blocks(xb, aval_of(x_shape, xa.dtype), axis)}, "
            f"{blocks(ib, aval_of(i_shape, ia.dtype), axis)}, "
            f"{blocks(outs[0], out, axis)})"]


def lower_take_along_transpose(fe, eqn, ins, outs):
    (ct, index), (ca, ia), out = ins, [a.aval for a in eqn.ins], out_aval(eqn)
    axis = eqn.params["axis"]
    both = list(np.broadcast_shapes(tuple(ca.shape), tuple(ia.shape)))
    cb, ib = fe.fresh(ct + "_b"), fe.fresh("index_b")
    return [f"{cb} = {broadcast(as_dtype(ct, ca, out.dtype), ca, both)}",
            f"{ib} = {broadcast(index, ia, both)}",
            f"{outs[0]} = np.zeros({shape_text(out.shape)}, {dtype_text(out.dtype)})",
            f"rt.take_along_transpose({blocks(cb, aval_of(both, out.dtype), axis)}, "
            f"{blocks(ib, aval_of(both, ia.dtype), axis)}, {blocks(outs[0], out, axis)})"]


LOWER.set("take", lower_take)
LOWER.set("take_along_axis", lower_take_along_axis)
LOWER.set("take_along_axis_transpose", lower_take_along_transpose)


# ---------------------------------------------------------------- scatters, dynamic slices
def lower_scatter(fe, eqn, ins, outs):
    (x, index, updates), out = ins, out_aval(eqn)
    xa, ia, ua = (a.aval for a in eqn.ins)
    axis, mode = eqn.params["axis"], eqn.params["mode"]
    lines = [f"{outs[0]} = {as_dtype(x, xa, out.dtype)}.copy()" if xa.dtype == out.dtype
             else f"{outs[0]} = {as_dtype(x, xa, out.dtype)}"]
    idx = flat_index(fe, index, ia, lines)
    rest = [d for j, d in enumerate(xa.shape) if j != axis]
    before, after = product(dims(x, xa)[:axis]), product(dims(x, xa)[axis + 1:])
    upd = fe.fresh("updates_b")
    shape = list(ia.shape) + rest
    value = as_dtype(updates, ua, out.dtype)
    lines.append(f"{upd} = {broadcast(value, ua, shape)}.reshape(({idx}.size, {before}, {after}))"
                 if ua.shape else
                 f"{upd} = np.full(({idx}.size, {before}, {after}), {value}, "
                 f"{dtype_text(out.dtype)})")
    lines.append(f"rt.scatter(rt.{mode.upper()}, {blocks(outs[0], out, axis)}, {idx}, {upd})")
    return lines


def _clamped_starts(fe, x: str, aval, starts: list, sizes, lines: list) -> list:
    """JAX's rule: each start is clamped so that the slice fits."""
    names = []
    for j, (start, n, d) in enumerate(zip(starts, sizes, dims(x, aval))):
        name = fe.fresh(f"start{j}")
        lines.append(f"{name} = min(max(int({start}), 0), {d} - {n})")
        names.append(name)
    return names


def _window(starts: list, sizes) -> str:
    return ", ".join(f"{s}:{s} + {n}" for s, n in zip(starts, sizes))


def lower_dynamic_slice(fe, eqn, ins, outs):
    x, starts, sizes = ins[0], ins[1:], eqn.params["slice_sizes"]
    lines = []
    names = _clamped_starts(fe, x, eqn.ins[0].aval, starts, sizes, lines)
    lines.append(f"{outs[0]} = np.ascontiguousarray({x}[{_window(names, sizes)}])")
    return lines


def lower_dynamic_update_slice(fe, eqn, ins, outs):
    (x, update), starts, out = ins[:2], ins[2:], out_aval(eqn)
    xa, ua = eqn.ins[0].aval, eqn.ins[1].aval
    lines = [f"{outs[0]} = {x}.copy()"]
    names = _clamped_starts(fe, x, xa, starts, ua.shape, lines)
    lines.append(f"rt.put({outs[0]}[{_window(names, ua.shape)}], "
                 f"{as_dtype(update, ua, out.dtype)})")
    return lines


LOWER.set("scatter", lower_scatter)
LOWER.set("dynamic_slice", lower_dynamic_slice)
LOWER.set("dynamic_update_slice", lower_dynamic_update_slice)


# ---------------------------------------------------------------- gathers as index maps
def view_dynamic_slice(fe, eqn, values):
    base, starts, sizes = values[0], values[1:], eqn.params["slice_sizes"]
    if -1 in base.shape:
        return None
    clamped = []
    for j, (start, n, d) in enumerate(zip(starts, sizes, base.shape)):
        s = fe.scalar(start)
        literal = _int_literal(s) if isinstance(start, Unrolled) else None
        if literal is not None:
            clamped.append(min(max(literal, 0), d - n))
            continue
        name = fe.fresh(f"start{j}")
        fe.lines.append(f"{name} = min(max(int({s}), 0), {d - n})")
        clamped.append(name)
    return mapped(out_aval(eqn), base, lambda index: [V.add(s, i) for s, i in zip(clamped, index)])


def _int_literal(s: str):
    """The integer a generated literal spells (`3`, `-1`, `np.int32(0)`), else None."""
    s = s.strip()
    if s.startswith("np.") and s.endswith(")"):
        s = s[s.index("(") + 1:-1]
    return int(s) if s.lstrip("-").isdigit() else None


def _clip(reader, index_value, index, n) -> str:
    return f"rt.clip_index({reader(index_value, index)}, {n})"


def view_take(fe, eqn, values):
    (x, idx), out, axis = values, out_aval(eqn), eqn.params["axis"]
    if -1 in x.shape or -1 in idx.shape:
        return None
    k = len(idx.shape)

    def element(index, reader):
        inner = index[axis:axis + k]
        source = index[:axis] + [_clip(reader, idx, inner, x.shape[axis])] + index[axis + k:]
        return reader(x, source)
    return View(out, element, [x, idx])


def view_take_along_axis(fe, eqn, values):
    (x, idx), out, axis = values, out_aval(eqn), eqn.params["axis"]
    if -1 in x.shape or -1 in idx.shape:
        return None

    def element(index, reader):
        at = [0 if d == 1 else i for i, d in zip(index, idx.shape)]
        source = [0 if d == 1 else i for i, d in zip(index, x.shape)]
        source[axis] = _clip(reader, idx, at, x.shape[axis])
        return reader(x, source)
    return View(out, element, [x, idx])


VIEW.set("dynamic_slice", view_dynamic_slice)
VIEW.set("take", view_take)
VIEW.set("take_along_axis", view_take_along_axis)


def view_take_along_transpose(fe, eqn, values):
    """The cotangent of take_along_axis as an index map: out[p] is the sum, over the few
    taken positions j of p's row, of ct[j] where index[j] is p's position (a one-hot select
    when one element per row was taken)."""
    (ct, idx), out, axis = values, out_aval(eqn), eqn.params["axis"]
    if -1 in ct.shape or -1 in idx.shape or -1 in out.shape:
        return None
    both = tuple(np.broadcast_shapes(ct.shape, idx.shape))
    if any(b != o for k, (b, o) in enumerate(zip(both, out.shape)) if k != axis) \
            or both[axis] > SMALL_GATHER:
        return None
    zero = scalar_literal(0, out.dtype)

    def element(index, reader):
        terms = []
        for j in range(both[axis]):
            at = list(index)
            at[axis] = j
            taken = _clip(reader, idx, [0 if d == 1 else i for i, d in zip(at, idx.shape)],
                          out.shape[axis])
            value = cast(reader(ct, [0 if d == 1 else i for i, d in zip(at, ct.shape)]),
                         eqn.ins[0].aval.dtype, out.dtype)
            terms.append(f"({value} if {taken} == {index[axis]} else {zero})")
        return " + ".join(terms) if terms else zero
    return View(out, element, [ct, idx])


SMALL_GATHER = 16  # taken positions per row, summed in the loop
VIEW.set("take_along_axis_transpose", view_take_along_transpose)
