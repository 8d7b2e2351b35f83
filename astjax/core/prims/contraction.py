"""Contractions: dot_general (batched matrix products) and einsum."""
import math
import numpy as np

from ...errors import ShapeError
from ..avals import AVal
from ..primitives import define


def _dot_general(a, b, *, dimension_numbers):
    """As a batched matmul (BLAS): each operand laid out as (batch, free, contracted)."""
    (lc, rc), (lb, rb) = dimension_numbers
    a, b = np.asarray(a), np.asarray(b)
    a_free = [i for i in range(a.ndim) if i not in lc and i not in lb]
    b_free = [i for i in range(b.ndim) if i not in rc and i not in rb]
    batch = [a.shape[i] for i in lb]
    size = lambda x, axes: math.prod([x.shape[i] for i in axes])  # noqa: E731
    a2 = a.transpose(list(lb) + a_free + list(lc)).reshape(batch + [size(a, a_free), size(a, lc)])
    b2 = b.transpose(list(rb) + list(rc) + b_free).reshape(batch + [size(b, rc), size(b, b_free)])
    out = np.matmul(a2, b2)
    return out.reshape(batch + [a.shape[i] for i in a_free] + [b.shape[i] for i in b_free])


def _dot_general_abstract(a, b, *, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    for i, j in zip(lc + lb, rc + rb):
        if a.shape[i] != b.shape[j]:
            raise ShapeError(f"dot of shapes {a.shape} and {b.shape}: contracted axes "
                             f"{i} and {j} have sizes {a.shape[i]} and {b.shape[j]}")
    shape = ([a.shape[i] for i in lb] + [d for i, d in enumerate(a.shape) if i not in lc + lb]
             + [d for j, d in enumerate(b.shape) if j not in rc + rb])
    return AVal(tuple(shape), np.result_type(a.dtype, b.dtype))


define("dot_general", _dot_general, _dot_general_abstract, kind="contraction")


def _einsum_labels(term: str, rank: int, ellipsis_rank: int) -> list:
    """The labels of one einsum term; the dims an ellipsis covers become ('...', k) labels,
    right-aligned so that they broadcast across terms as NumPy does."""
    if "..." not in term:
        return list(term)
    head, tail = term.split("...")
    covered = rank - len(head) - len(tail)
    return list(head) + [("...", k) for k in range(ellipsis_rank - covered, ellipsis_rank)] + list(tail)


def _einsum_output(inputs: list, spec, ellipsis_rank: int) -> list:
    if spec is not None:
        return _einsum_labels(spec, ellipsis_rank + len(spec.replace("...", "")), ellipsis_rank)
    named = [lab for term in inputs for lab in term if isinstance(lab, str)]
    once = sorted(lab for lab in set(named) if named.count(lab) == 1)
    return [("...", k) for k in range(ellipsis_rank)] + once


def _einsum_abstract(*avals, subscripts):
    """The output shape from the subscripts alone (implicit and explicit forms, ellipses)."""
    lhs, _, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(avals):
        raise ShapeError(f"einsum {subscripts!r} names {len(terms)} operands, got {len(avals)}")
    ellipsis_rank = max([a.ndim - len(t.replace("...", "")) for t, a in zip(terms, avals)
                         if "..." in t] + [0])
    inputs = [_einsum_labels(t, a.ndim, ellipsis_rank) for t, a in zip(terms, avals)]
    sizes = {}
    for labels, a in zip(inputs, avals):
        if len(labels) != a.ndim:
            raise ShapeError(f"einsum term {''.join(map(str, labels))!r} does not fit an operand "
                             f"of shape {a.shape}")
        for label, d in zip(labels, a.shape):
            known = sizes.get(label, d)
            if 1 not in (known, d) and known != d:
                raise ShapeError(f"einsum {subscripts!r}: label {label!r} has sizes {known} and {d}")
            sizes[label] = d if known == 1 else known
    output = _einsum_output(inputs, rhs if "->" in subscripts else None, ellipsis_rank)
    shape = tuple(sizes.get(lab, 1) for lab in output)
    return AVal(shape, np.result_type(*[a.dtype for a in avals]))


define("einsum", lambda *xs, subscripts: np.einsum(subscripts, *xs, optimize=True), _einsum_abstract,
       kind="contraction")
