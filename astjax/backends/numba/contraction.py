"""Lowerings of dot_general and einsum: batched matrix products through BLAS where the dtype
allows (gemm from blas_runtime; np.dot's gemv for a large product with a vector, see
`_large`), loops otherwise."""
import math

import numpy as np

from astjax.core.dims import by_size, known_equal, pinned
from astjax.core.prims.contraction import _einsum_labels, _einsum_output

from astjax.core.ir import Eqn, Var

from astjax.core.avals import AVal

from .blas_runtime import SMALL_MACS
from .emit import FOLD, INLINE, LOWER, VIEW, as_dtype, cast, dtype_text, product, scalar_literal, transposed
from .layout import out_aval, shape_text
from .values import Array, View


def _matmul_layout(fe, name: str, aval, dtype, order: list, groups: list, lines: list) -> str:
    """`name` transposed to `order` and reshaped to the 3-D product of each axis group."""
    d = [str(s) for s in aval.shape]
    local = fe.fresh(name + "_3d") if name.isidentifier() else fe.fresh("operand_3d")
    source = as_dtype(name, aval, dtype) if aval.shape else \
        f"np.full(1, {as_dtype(name, aval, dtype)})"
    if order != sorted(order):
        source = f"np.ascontiguousarray({transposed(source, order)})"
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
    result, shape = matmul(fe, (a, aa, lb, a_free, lc), (b, ba, rb, rc, b_free), out.dtype,
                           outs[0], lines)
    lines.append(f"{outs[0]} = {result}.reshape({result}.size)[0]" if not out.shape
                 else f"{outs[0]} = {_shaped(result, shape, out.shape)}")
    return lines


def _shaped(result: str, shape, dims) -> str:
    """matmul's result as an array of `dims`: as it is where its shape already is (a product
    of matrices), else reshaped."""
    if shape == tuple(str(d) for d in dims):
        return result
    return f"{result}.reshape({shape_text(dims)})"


def matmul(fe, left, right, dtype, base: str, lines: list) -> tuple:
    """(name, shape): left as (batch, free, contracted) @ right as (batch, contracted, free),
    each of left/right (name, aval, axes, axes, axes) in that order. Without batch axes the
    result is an (m, n) matrix, its shape given as texts; else a (batch, m, n) array and
    None."""
    a, aa, *a_groups = left
    b, ba, *b_groups = right
    plain = _plain_matmul(fe, a, aa, a_groups, b, ba, b_groups, dtype, base, lines)
    if plain is not None:
        return plain
    blas = np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize >= 4
    ta = blas and _swapped(aa, dtype, a_groups)
    tb = blas and _swapped(ba, dtype, b_groups)
    a3 = _matmul_layout(fe, a, aa, dtype, *_layout(a_groups, ta), lines)
    b3 = _matmul_layout(fe, b, ba, dtype, *_layout(b_groups, tb), lines)
    result = fe.fresh(base + "_3d")
    rows = f"{a3}.shape[{2 if ta else 1}]"
    cols = f"{b3}.shape[{1 if tb else 2}]"
    shape3 = f"({a3}.shape[0], {rows}, {cols})"
    if blas:
        lines += [f"{result} = np.empty({shape3}, {dtype_text(dtype)})",
                  f"rt.batched_dot({a3}, {b3}, {result}, {_flag(ta)}, {_flag(tb)})"]
    else:
        lines += [f"{result} = np.zeros({shape3}, {dtype_text(dtype)})",
                  f"rt.batched_matmul_loop({a3}, {b3}, {result})"]
    return result, None


def _swapped(aval, dtype, groups) -> bool:
    """Whether an operand's (batch, first, second) groups are its own axes in the order
    (batch, second, first): reshaped to (batch, second, first) without a copy, BLAS reads
    each batch's matrix transposed. (A gradient's `einsum('tbi,tbj->ij')` of a scan's
    stacked values sums over two leading axes: their transposed copy took 1.6 MB a call.)"""
    batch, first, second = groups
    return (np.dtype(aval.dtype) == np.dtype(dtype) and bool(first) and bool(second)
            and batch + second + first == list(range(aval.ndim)))


def _layout(groups, swapped) -> tuple:
    """(axis order, groups) of the 3-D layout an operand is reshaped to."""
    if swapped:
        groups = [groups[0], groups[2], groups[1]]
    return sum(groups, []), groups


def _as_matrix(name: str, aval, groups: list):
    """A 2-D operand (or a vector) read with no copy: (name, whether the product reads it
    transposed), or None when its layout needs a copy."""
    batch, first, second = groups
    if batch or aval.ndim > 2 or np.dtype(aval.dtype).kind != "f" or aval.dtype.itemsize < 4:
        return None
    order = first + second
    if aval.ndim == 1:
        return (name, False) if len(order) == 1 else None
    if sorted(order) != [0, 1] or len(first) != 1:
        return None
    return name, order != [0, 1]


def _size(aval, axes):
    return math.prod(aval.shape[j] for j in axes)


def _plain_matmul(fe, a, aa, a_groups, b, ba, b_groups, dtype, base, lines):
    """A product without batch axes of two matrices (or vectors) of the result's float dtype:
    one BLAS product on the operands as they are, read transposed where the product needs
    it, no copies, into an (m, n) matrix: (its name, (m, n) as texts).  Else None."""
    if aa.dtype != dtype or ba.dtype != dtype or not aa.shape or not ba.shape:
        return None
    left = _as_matrix(a, aa, a_groups)
    right = _as_matrix(b, ba, b_groups)
    if left is None or right is None or (aa.ndim == 1 and ba.ndim == 1):
        return None
    result = fe.fresh(base + "_2d")
    m = product([str(aa.shape[j]) for j in a_groups[1]]) if a_groups[1] else "1"
    n = product([str(ba.shape[j]) for j in b_groups[2]]) if b_groups[2] else "1"
    vector = _vector_product(a, aa, a_groups, b, ba, b_groups, left, right)
    if vector is not None and _large(aa, a_groups, ba, b_groups):
        lines.append(f"{result} = {vector}.reshape(({m}, {n}))")
        return result, (m, n)
    if aa.ndim == 1:
        left = (f"{a}.reshape((1, {aa.shape[0]}))", False)
    if ba.ndim == 1:
        right = (f"{b}.reshape(({ba.shape[0]}, 1))", False)
    lines += [f"{result} = np.empty(({m}, {n}), {dtype_text(dtype)})",
              f"rt.dot({left[0]}, {right[0]}, {result}, {_flag(left[1])}, {_flag(right[1])}, "
              f"{fe.module.blas_threads()})"]
    return result, (m, n)


def _large(aa, a_groups, ba, b_groups) -> bool:
    """Whether a product with a vector is past SMALL_MACS multiply-adds, where np.dot's gemv
    beats gemm (a 32x100000 matrix times a vector: 0.67 ms against 4.0). Below it gemm,
    called straight (rt.dot), costs less than np.dot's wrapper: 1.4 against 2.0 us for a
    512x32 matrix, twice in each step of a small model's training loop."""
    macs = _size(aa, a_groups[1]) * _size(aa, a_groups[2]) * _size(ba, b_groups[2])
    return by_size(lambda: macs > SMALL_MACS)


def _flag(transposed) -> str:
    """A product's transpose flag as a plain (not constant-typed) bool: the runtime's entry
    then compiles once per dtype, not once per pair of constant flags."""
    return f"np.bool_({bool(transposed)})"


def _vector_product(a, aa, a_groups, b, ba, b_groups, left, right):
    """np.dot's text for a product with a vector, or a matrix of one row or column (BLAS's
    gemv: cheaper than a product of matrices when large); None for a product of matrices."""
    def text(operand):
        return operand[0] + ".T" * operand[1]
    if aa.ndim == 1 or ba.ndim == 1:
        return f"np.dot({text(left)}, {text(right)})"
    if _size(ba, b_groups[2]) == 1:
        return f"np.dot({text(left)}, {b}.reshape({ba.size}))"
    if _size(aa, a_groups[1]) == 1:
        return f"np.dot({a}.reshape({aa.size}), {text(right)})"
    return None


LOWER.set("dot_general", lower_dot_general)


def fold_transposes(fe, eqn):
    """dot_general of a transposed array reads the array itself (its dimension numbers
    renamed) when the transpose keeps the order of the free axes: no copy."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    ins, numbers = list(eqn.ins), [[list(lc), list(lb)], [list(rc), list(rb)]]
    changed = False
    for k, atom in enumerate(eqn.ins):
        view = fe.env.get(getattr(atom, "id", None))
        base, perm = getattr(view, "transposed", (None, None))
        if not isinstance(base, Array):
            continue
        contracted, batch = numbers[k]
        free = [j for j in range(len(perm)) if j not in contracted + batch]
        if [perm[j] for j in free] != sorted(perm[j] for j in free):
            continue  # the result's axes would come out in another order
        numbers[k] = [[perm[j] for j in contracted], [perm[j] for j in batch]]
        var = Var(base.aval, "operand")
        fe.bind(var, base)
        ins[k] = var
        changed = True
    if not changed:
        return eqn
    (lc, lb), (rc, rb) = numbers
    params = dict(eqn.params, dimension_numbers=((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))
    return Eqn(eqn.outs, eqn.prim, ins, params, eqn.loc, eqn.note)


FOLD["dot_general"] = fold_transposes


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
    left = (ins[0], aa, *axes(la, [batch, a_free, contracted]))
    right = (ins[1], ba, *axes(lb_, [batch, contracted, b_free]))
    order = batch + a_free + b_free
    if output == batch + b_free + a_free and output != order:  # (A B)^T = B^T A^T: no copy
        left = (ins[1], ba, *axes(lb_, [batch, b_free, contracted]))
        right = (ins[0], aa, *axes(la, [batch, contracted, a_free]))
        order = output
    result, shape = matmul(fe, left, right, out.dtype, name, lines)
    if not output:
        lines.append(f"{name} = {result}.reshape({result}.size)[0]")
        return lines
    shaped = _shaped(result, shape, [sizes[lab] for lab in order])
    perm = [order.index(lab) for lab in output]
    if perm != sorted(perm):
        shaped = f"np.ascontiguousarray({transposed(shaped, perm)})"
    lines.append(f"{name} = {shaped}")
    return lines


LOWER.set("einsum", lower_einsum)


# ---------------------------------------------------------------- small contractions inline
SMALL_CONTRACTION = 16  # at most this many products per element: a sum in the loop, no BLAS
SMALL_WORK = 8192  # ... unless the whole product is bigger than this (BLAS pays then)


def _product_view(fe, eqn, values, inputs, output, sizes):
    """A contraction of labelled operands as a view: each element the sum over the summed
    labels (few) of the product of the operands' elements."""
    out = out_aval(eqn)
    summed = [lab for lab in sizes if lab not in output]
    if any(pinned(sizes[lab]) is None for lab in summed):
        return None  # a free length summed over: a loop, not an unrolled sum
    count = math.prod(pinned(sizes[lab]) for lab in summed)
    if any(d < 0 for v in values for d in v.shape) or count > SMALL_CONTRACTION:
        return None
    if count > 2 and by_size(lambda: count * out.size > SMALL_WORK):
        return None  # a matrix product worth BLAS
    combos = [dict(zip(summed, ks)) for ks in np.ndindex(*[pinned(sizes[lab]) for lab in summed])]

    def element(index, reader):
        at = dict(zip(output, index))
        terms = []
        for combo in combos:
            where = {**at, **combo}
            factors = [cast(reader(v, [where[lab] if d != 1 else 0 for lab, d in
                                       zip(labels, v.shape)]), a.aval.dtype, out.dtype)
                       for v, labels, a in zip(values, inputs, eqn.ins)]
            terms.append(" * ".join(factors))
        if not terms:
            return scalar_literal(0, out.dtype)
        return "(" + " + ".join(terms) + ")" if len(terms) > 1 else terms[0]
    return View(out, element, values)


def _dot_labels(eqn, values):
    """dot_general as einsum labels: (labels per operand, output labels, label sizes)."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    a, b = values
    a_labels, b_labels = [None] * len(a.shape), [None] * len(b.shape)
    output = []
    for k, (i, j) in enumerate(zip(lb, rb)):
        a_labels[i] = b_labels[j] = f"b{k}"
        output.append(f"b{k}")
    for k, (i, j) in enumerate(zip(lc, rc)):
        a_labels[i] = b_labels[j] = f"c{k}"
    for i in range(len(a.shape)):
        if a_labels[i] is None:
            a_labels[i] = f"l{i}"
            output.append(a_labels[i])
    for j in range(len(b.shape)):
        if b_labels[j] is None:
            b_labels[j] = f"r{j}"
            output.append(b_labels[j])
    sizes = {}
    for labels, v in ((a_labels, a), (b_labels, b)):
        for lab, d in zip(labels, v.shape):
            sizes[lab] = max(sizes.get(lab, 1), d)
    return [a_labels, b_labels], output, sizes


def view_dot_general(fe, eqn, values):
    return _product_view(fe, eqn, values, *_dot_labels(eqn, values))


def _einsum_labels_of(eqn):
    """An einsum's (labels per operand, output labels, label sizes)."""
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
    return inputs, output, sizes


def view_einsum(fe, eqn, values):
    return _product_view(fe, eqn, values, *_einsum_labels_of(eqn))


VIEW.set("dot_general", view_dot_general)
VIEW.set("einsum", view_einsum)


# ---------------------------------------------------------------- products as loop nests
INLINE_WORK = 4096  # multiply-adds below which a loop nest beats a BLAS call's overhead
ROW_MIN = 128  # summed elements per row below which the per-row work costs more than a pass


def inline_contraction(fe, eqn, labelled) -> bool:
    """A contraction emitted as the elementwise product of its operands over (output labels,
    summed labels) and a sum over the summed ones: a loop nest whose reduction is the dot
    product, so the producers and consumers of the result fuse with it.  For small products
    (a BLAS call costs about a microsecond), memory-bound ones that a pass over their matrix
    in memory order already makes (see `_streamed`) and products that sum over nothing (an
    outer product is a broadcast multiply).

    The operands reach the product's domain by transposes and broadcasts written as
    equations, so an operand still being computed by a loop nest joins it as an alias."""
    avals = [a.aval for a in eqn.ins]
    if any(d < 0 for a in avals for d in a.shape):
        return False
    inputs, output, sizes = labelled(eqn, avals)
    if any(len(set(labels)) != len(labels) for labels in inputs):
        return False  # a repeated label (a diagonal): the plain lowering
    summed = [lab for lab in sizes if lab not in output]
    if not summed and len(avals) < 2:
        return False  # a transpose or a broadcast, not a product
    work = math.prod(sizes[lab] for lab in output + summed)
    domain = list(output) + summed
    if summed and by_size(lambda: work > INLINE_WORK):
        domain = _streamed(fe, eqn, inputs, summed)
        if domain is None:
            return False
    out, dtype = eqn.outs[0], eqn.outs[0].aval.dtype
    shape = tuple(sizes[lab] for lab in domain)
    operands = [_to_domain(fe, eqn, atom, labels, domain, shape)
                for atom, labels in zip(eqn.ins, inputs)]
    kept = [lab for lab in domain if lab in output]
    target = out if kept == list(output) else \
        Var(AVal(tuple(sizes[lab] for lab in kept), dtype), "product")
    terms = operands[0]
    for k, operand in enumerate(operands[1:]):
        last = k == len(operands) - 2 and not summed
        step = target if last else Var(AVal(shape, dtype), fe.base_name(out, eqn.prim) + "_terms")
        _emit(fe, eqn, step, "mul", [terms, operand])
        terms = step
    if summed:
        axes = tuple(sorted(domain.index(lab) for lab in summed))
        _emit(fe, eqn, target, "reduce_sum", [terms], axes=axes)
    if target is not out:
        _emit(fe, eqn, out, "transpose", [target],
              permutation=tuple(kept.index(lab) for lab in output))
    return True


def _widest(inputs) -> int:
    """The operand with the most axes (the first of equals): chosen by structure alone, so
    the choice holds for every size (a size comparison would be a fact on symbolic sizes)."""
    return max(range(len(inputs)), key=lambda k: (len(inputs[k]), -k))


def _to_domain(fe, eqn, atom, labels, domain, shape):
    """`atom` (axes labelled `labels`) transposed and broadcast to the domain's shape."""
    order = sorted(range(len(labels)), key=lambda t: domain.index(labels[t]))
    if order != list(range(len(labels))):
        moved = Var(AVal(tuple(atom.aval.shape[t] for t in order), atom.aval.dtype), "operand")
        _emit(fe, eqn, moved, "transpose", [atom], permutation=tuple(order))
        atom, labels = moved, [labels[t] for t in order]
    if len(labels) == len(domain) and all(known_equal(d, s) for d, s in
                                          zip(atom.aval.shape, shape)):
        return atom  # (compared by structure: a size compared by its witness is a fact)
    wide = Var(AVal(shape, atom.aval.dtype), "operand")
    _emit(fe, eqn, wide, "broadcast_in_dim", [atom], shape=shape,
          broadcast_dimensions=tuple(domain.index(lab) for lab in labels))
    return wide


def _emit(fe, eqn, out, prim, ins, **params):
    """One equation written in place of `eqn` (with its location and note)."""
    fe.expand([Eqn([out], prim, list(ins), params, eqn.loc, eqn.note)])


def _streamed(fe, eqn, inputs, summed):
    """The loop nest's axes (labels, outermost first) when a product is better as a pass of
    the nest over its matrix than as a BLAS call, else None: memory-bound (one operand has
    every label, so the multiply-adds are no more than its elements: a matrix times a
    vector), summing along that matrix's rows (the axes are its own, in memory order), rows
    long enough for the per-row work after the sum (scalar code, one row at a time) not to
    dominate, and a matrix that other work reads or writes in the same pass (its producer,
    or a consumer such as a gradient's outer product).  A BLAS matrix-vector product alone
    is faster than the nest's sum (measured: 1.5-2x)."""
    widest = _widest(inputs)
    domain = list(inputs[widest])
    if set(domain) != set(summed) | {lab for labels in inputs for lab in labels} or \
            domain[len(domain) - len(summed):] != sorted(summed, key=domain.index):
        return None
    matrix = eqn.ins[widest]
    if not isinstance(matrix, Var) or not (len(fe.users.get(matrix.id, ())) > 1 or
                                           any(n.member(matrix) for n in fe.nests)):
        return None
    row = math.prod(matrix.aval.shape[domain.index(lab)] for lab in summed)
    return None if by_size(lambda: row < ROW_MIN) else domain


INLINE["dot_general"] = lambda fe, eqn: inline_contraction(fe, eqn, _dot_labels)
INLINE["einsum"] = lambda fe, eqn: inline_contraction(fe, eqn, lambda e, v: _einsum_labels_of(e))
