"""Contractions: dot_general is `stablehlo.dot_general`; einsum becomes a chain of them, one
operand at a time (diagonals and sums over labels no one else needs come first)."""
import numpy as np

from astjax.core.prims.contraction import _einsum_labels, _einsum_output

from .emit import LOWER


def dot_general(body, a, b, contracting, batch, dtype):
    (lc, rc), (lb, rb) = contracting, batch
    a, b = body.convert(a, dtype), body.convert(b, dtype)
    shape = ([a.shape[i] for i in lb] + [d for i, d in enumerate(a.shape) if i not in lc + lb]
             + [d for j, d in enumerate(b.shape) if j not in rc + rb])
    if not lc:  # an outer product (per batch): broadcasts and a multiply, not a matmul
        return _outer(body, a, b, lb, rb, shape)
    numbers = (f"#stablehlo.dot<lhs_batching_dimensions = [{', '.join(map(str, lb))}], "
               f"rhs_batching_dimensions = [{', '.join(map(str, rb))}], "
               f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}], "
               f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]>")
    return body.op1("stablehlo.dot_general", [a, b], shape, dtype,
                    f"dot_dimension_numbers = {numbers}", hint="dot")


def _outer(body, a, b, lb, rb, shape):
    a_free = [i for i in range(a.ndim) if i not in lb]
    b_free = [j for j in range(b.ndim) if j not in rb]
    a = body.transpose(a, list(lb) + a_free)
    b = body.transpose(b, list(rb) + b_free)
    nb, na = len(lb), len(a_free)
    a = body.broadcast_in_dim(a, shape, range(nb + na))
    b = body.broadcast_in_dim(b, shape, list(range(nb)) + list(range(nb + na, len(shape))))
    return body.binary("stablehlo.multiply", a, b)


@LOWER.register("dot_general")
def _dot_general(body, eqn, a, b):
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    return [dot_general(body, a, b, (list(lc), list(rc)), (list(lb), list(rb)),
                        eqn.outs[0].aval.dtype)]


@LOWER.register("einsum")
def _einsum(body, eqn, *operands):
    subscripts = eqn.params["subscripts"]
    out = eqn.outs[0].aval
    lhs, _, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    ellipsis_rank = max([x.ndim - len(t.replace("...", "")) for t, x in zip(terms, operands)
                         if "..." in t] + [0])
    labelled = [(_einsum_labels(t, x.ndim, ellipsis_rank), body.convert(x, out.dtype))
                for t, x in zip(terms, operands)]
    output = _einsum_output([lab for lab, _ in labelled], rhs if "->" in subscripts else None,
                            ellipsis_rank)
    sizes = {}
    for labels, x in labelled:
        for label, d in zip(labels, x.shape):
            sizes[label] = d if sizes.get(label, 1) == 1 else sizes[label]
    labelled = [_tidy(body, labels, x, sizes, output, labelled, k)
                for k, (labels, x) in enumerate(labelled)]
    labels, x = labelled[0]
    for k in range(1, len(labelled)):
        later = set(output) | {lab for labs, _ in labelled[k + 1:] for lab in labs}
        labels, x = _contract(body, (labels, x), labelled[k], later, out.dtype)
    labels, x = _sum_out(body, labels, x, set(output))
    return [body.transpose(x, [labels.index(lab) for lab in output])]


def _tidy(body, labels, x, sizes, output, labelled, k):
    """One operand made plain: repeated labels reduced to their diagonal, size-1 axes of a
    broadcast label widened, labels nobody else needs summed away."""
    labels = list(labels)
    while len(set(labels)) < len(labels):
        label = next(lab for lab in labels if labels.count(lab) > 1)
        i = labels.index(label)
        j = labels.index(label, i + 1)
        eye = body.compare(body.op1("stablehlo.iota", [], x.shape, np.int64, f"iota_dimension = {i} : i64"),
                           body.op1("stablehlo.iota", [], x.shape, np.int64, f"iota_dimension = {j} : i64"),
                           "EQ")
        x = body.select(eye, x, body.constant(0, x.dtype, x.shape))
        labels, x = _reduce(body, labels, x, [j])
    widened = [sizes[lab] for lab in labels]
    if list(x.shape) != widened:
        x = body.broadcast_in_dim(x, widened, range(x.ndim))
    others = set(output) | {lab for m, (labs, _) in enumerate(labelled) if m != k for lab in labs}
    return _sum_out(body, labels, x, others)


def _sum_out(body, labels, x, keep):
    return _reduce(body, labels, x, [i for i, lab in enumerate(labels) if lab not in keep])


def _reduce(body, labels, x, axes):
    if not axes:
        return labels, x
    zero = body.constant(0, x.dtype)
    (x,) = body.reduce([x], [zero], axes, lambda r, a, b: [r.binary("stablehlo.add", a[0], b[0])])
    return [lab for i, lab in enumerate(labels) if i not in axes], x


def _contract(body, left, right, later, dtype):
    (la, a), (lb, b) = left, right
    shared = [lab for lab in la if lab in lb]
    batch = [lab for lab in shared if lab in later]
    contracted = [lab for lab in shared if lab not in later]
    x = dot_general(body, a, b, ([la.index(c) for c in contracted], [lb.index(c) for c in contracted]),
                    ([la.index(c) for c in batch], [lb.index(c) for c in batch]), dtype)
    labels = batch + [lab for lab in la if lab not in shared] + [lab for lab in lb if lab not in shared]
    return labels, x
