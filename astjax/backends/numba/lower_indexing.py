"""Numba lowerings of gathers, scatters, dynamic slices and contractions.

Gathers and scatters view their operands as (before, axis, after) blocks and call `rt`
helpers (explicit loops, JAX's index rules: gathers clamp, scatters drop out-of-range
indices).  dot_general is a BLAS matmul (`np.dot`) on (batch, free, contracted) layouts;
einsum is written out as nested loops over its labels.
"""
import numpy as np

from astjax.core.primitives import register
from astjax.core.prims_structural import _einsum_labels, _einsum_output

from .emit import as_dtype, dims, dtype_text, product, tuple_text
from .lower_structural import blocks, out_aval


def shape_text(shape) -> str:
    return tuple_text([str(d) for d in shape])


def flat_index(fe, name: str, aval, lines: list) -> str:
    """An index operand as a 1-D array (a 0-d index becomes one element)."""
    flat = fe.fresh(name + "_flat") if name.isidentifier() else fe.fresh("index_flat")
    if aval.shape == ():
        lines.append(f"{flat} = np.full(1, {name})")
    else:
        lines.append(f"{flat} = {name}.reshape({name}.size)")
    return flat


def broadcast(name: str, aval, shape) -> str:
    """`name` as a contiguous array of `shape` (itself when it already has it)."""
    if tuple(aval.shape) == tuple(shape):
        return name
    return f"np.ascontiguousarray(np.broadcast_to({name}, {shape_text(shape)}))"


def from_blocks(name: str, shape) -> str:
    """A (before, axis, after) result in its final shape (a scalar when that is 0-d)."""
    return f"{name}[0, 0, 0]" if not shape else f"{name}.reshape({shape_text(shape)})"


def _aval(shape, dtype):
    from astjax.core.avals import AVal
    return AVal(tuple(shape), np.dtype(dtype))


# ---------------------------------------------------------------- gathers
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
            f"rt.take_along({blocks(xb, _aval(x_shape, xa.dtype), axis)}, "
            f"{blocks(ib, _aval(i_shape, ia.dtype), axis)}, "
            f"{blocks(outs[0], out, axis)})"]


def lower_take_along_transpose(fe, eqn, ins, outs):
    (ct, index), (ca, ia), out = ins, [a.aval for a in eqn.ins], out_aval(eqn)
    axis = eqn.params["axis"]
    both = list(np.broadcast_shapes(tuple(ca.shape), tuple(ia.shape)))
    cb, ib = fe.fresh(ct + "_b"), fe.fresh("index_b")
    return [f"{cb} = {broadcast(as_dtype(ct, ca, out.dtype), ca, both)}",
            f"{ib} = {broadcast(index, ia, both)}",
            f"{outs[0]} = np.zeros({shape_text(out.shape)}, {dtype_text(out.dtype)})",
            f"rt.take_along_transpose({blocks(cb, _aval(both, out.dtype), axis)}, "
            f"{blocks(ib, _aval(both, ia.dtype), axis)}, {blocks(outs[0], out, axis)})"]


register("numba", "take", lower_take)
register("numba", "take_along_axis", lower_take_along_axis)
register("numba", "take_along_axis_transpose", lower_take_along_transpose)


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
    lines.append(f"{outs[0]}[{_window(names, ua.shape)}] = {as_dtype(update, ua, out.dtype)}")
    return lines


register("numba", "scatter", lower_scatter)
register("numba", "dynamic_slice", lower_dynamic_slice)
register("numba", "dynamic_update_slice", lower_dynamic_update_slice)


# ---------------------------------------------------------------- contraction
def _matmul_layout(fe, name: str, aval, dtype, order: list, groups: list, lines: list) -> str:
    """`name` transposed to `order` and reshaped to the 3-D product of each axis group."""
    d = [str(s) for s in aval.shape]
    local = fe.fresh(name + "_3d") if name.isidentifier() else fe.fresh("operand_3d")
    source = as_dtype(name, aval, dtype) if aval.shape else \
        f"np.full(1, {as_dtype(name, aval, dtype)})"
    if order != sorted(order):
        source = f"np.ascontiguousarray({source}.transpose({tuple_text([str(j) for j in order])}))"
    shape = ", ".join(product([d[j] for j in g]) if g else "1" for g in groups)
    lines.append(f"{local} = {source}.reshape(({shape}))")
    return local


def lower_dot_general(fe, eqn, ins, outs):
    (a, b), (aa, ba), out = ins, [x.aval for x in eqn.ins], out_aval(eqn)
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lc, rc, lb, rb = list(lc), list(rc), list(lb), list(rb)
    a_free = [j for j in range(aa.ndim) if j not in lc + lb]
    b_free = [j for j in range(ba.ndim) if j not in rc + rb]
    lines = []
    result = matmul(fe, (a, aa, lb, a_free, lc), (b, ba, rb, rc, b_free), out.dtype,
                    outs[0], lines)
    lines.append(f"{outs[0]} = {result}.reshape({result}.size)[0]" if not out.shape
                 else f"{outs[0]} = {result}.reshape({shape_text(out.shape)})")
    return lines


def matmul(fe, left, right, dtype, base: str, lines: list) -> str:
    """A (batch, m, n) array: left as (batch, free, contracted) @ right as (batch,
    contracted, free); each of left/right is (name, aval, axes, axes, axes) in that order."""
    a, aa, *a_groups = left
    b, ba, *b_groups = right
    a3 = _matmul_layout(fe, a, aa, dtype, sum(a_groups, []), a_groups, lines)
    b3 = _matmul_layout(fe, b, ba, dtype, sum(b_groups, []), b_groups, lines)
    result = fe.fresh(base + "_3d")
    shape3 = f"({a3}.shape[0], {a3}.shape[1], {b3}.shape[2])"
    if np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize >= 4:
        if not a_groups[0]:
            lines.append(f"{result} = np.dot({a3}[0], {b3}[0]).reshape({shape3})")
        else:
            lines += [f"{result} = np.empty({shape3}, {dtype_text(dtype)})",
                      f"rt.batched_dot({a3}, {b3}, {result})"]
    else:
        lines += [f"{result} = np.zeros({shape3}, {dtype_text(dtype)})",
                  f"rt.batched_matmul_loop({a3}, {b3}, {result})"]
    return result


register("numba", "dot_general", lower_dot_general)


def lower_einsum(fe, eqn, ins, outs):
    """Nested loops: output labels outermost, summed labels inside, one multiply-add."""
    out = out_aval(eqn)
    subscripts = eqn.params["subscripts"]
    lhs, _, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    avals = [a.aval for a in eqn.ins]
    ellipsis = max([a.ndim - len(t.replace("...", "")) for t, a in zip(terms, avals)
                    if "..." in t] + [0])
    inputs = [_einsum_labels(t, a.ndim, ellipsis) for t, a in zip(terms, avals)]
    output = _einsum_output(inputs, rhs if "->" in subscripts else None, ellipsis)
    sizes: dict = {}
    for labels, a in zip(inputs, avals):
        for label, d in zip(labels, a.shape):
            sizes[label] = max(sizes.get(label, 1), d)
    as_dot = _einsum_as_matmul(fe, ins, avals, inputs, output, sizes, out, outs[0])
    if as_dot is not None:
        return as_dot
    loop_names = {label: fe.fresh(f"e{k}") for k, label in enumerate(sizes)}
    summed = [lab for lab in sizes if lab not in output]

    def element(name, labels, aval):
        if not labels:
            return name
        index = [loop_names[lab] if d != 1 else "0" for lab, d in zip(labels, aval.shape)]
        return f"{name}[{', '.join(index)}]"

    operands = [as_dtype(x, a, out.dtype) for x, a in zip(ins, avals)]
    locals_ = []
    lines = []
    for x, a in zip(operands, avals):
        if x.isidentifier():
            locals_.append(x)
        else:
            local = fe.fresh("operand")
            lines.append(f"{local} = {x}")
            locals_.append(local)
    product_text = " * ".join(element(x, lab, a) for x, lab, a in zip(locals_, inputs, avals))
    target = element(outs[0], output, out)
    lines.append(f"{outs[0]} = np.zeros({shape_text(out.shape)}, {dtype_text(out.dtype)})"
                 if output else f"{outs[0]} = {dtype_text(out.dtype)}(0)")
    indent = ""
    for lab in output + summed:
        lines.append(f"{indent}for {loop_names[lab]} in range({sizes[lab]}):")
        indent += "    "
    lines.append(f"{indent}{target} += {product_text}")
    return lines


def _einsum_as_matmul(fe, ins, avals, inputs, output, sizes, out, name):
    """Two operands, no label repeated within one, no broadcasting, every label kept or
    shared: the einsum is a batched matmul (BLAS) plus a transpose.  Else None."""
    if len(inputs) != 2:
        return None
    (la, lb_), (aa, ba) = inputs, avals
    if len(set(la)) != len(la) or len(set(lb_)) != len(lb_) or len(set(output)) != len(output):
        return None
    if any(sizes[lab] != d for labels, a in zip(inputs, avals) for lab, d in zip(labels, a.shape)):
        return None
    batch = [lab for lab in output if lab in la and lab in lb_]
    contracted = [lab for lab in la if lab in lb_ and lab not in output]
    a_free = [lab for lab in la if lab not in lb_]
    b_free = [lab for lab in lb_ if lab not in la]
    if any(lab not in output for lab in a_free + b_free):
        return None  # a label summed within one operand: the loops handle it
    def axes(labels, groups):
        return [[labels.index(lab) for lab in group] for group in groups]

    lines = []
    result = matmul(fe, (ins[0], aa, *axes(la, [batch, a_free, contracted])),
                    (ins[1], ba, *axes(lb_, [batch, contracted, b_free])),
                    out.dtype, name, lines)
    order = batch + a_free + b_free
    if not output:
        lines.append(f"{name} = {result}.reshape({result}.size)[0]")
        return lines
    shaped = f"{result}.reshape({shape_text([sizes[lab] for lab in order])})"
    perm = [order.index(lab) for lab in output]
    if perm != sorted(perm):
        shaped = f"np.ascontiguousarray({shaped}.transpose({tuple_text([str(j) for j in perm])}))"
    lines.append(f"{name} = {shaped}")
    return lines


register("numba", "einsum", lower_einsum)
