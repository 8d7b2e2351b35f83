"""Lowerings of dot_general and einsum: batched matrix products through BLAS (np.dot) where
the dtype allows, loops otherwise."""
import numpy as np

from astjax.core.prims.contraction import _einsum_labels, _einsum_output

from .emit import LOWER, as_dtype, dtype_text, product, tuple_text
from .layout import out_aval, shape_text


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


LOWER.set("dot_general", lower_dot_general)


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


LOWER.set("einsum", lower_einsum)
