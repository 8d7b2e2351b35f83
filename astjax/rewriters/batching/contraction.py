"""Batching of contractions: the batch axis becomes a batch dimension of dot_general, or a
fresh einsum label in front of the output."""
from astjax.core.bind import aval, bind

from .util import BATCH, moveaxis, shift


@BATCH.register("dot_general")
def _dot_general(args, dims, *, axis_size, dimension_numbers):
    (lhs, rhs), (l_dim, r_dim) = args, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if l_dim is not None and r_dim is not None:  # a new batch dimension of the product
        numbers = ((shift(lc), shift(rc)), ((0,) + shift(lb), (0,) + shift(rb)))
        return bind("dot_general", lhs, rhs, dimension_numbers=numbers), 0
    if l_dim is not None:  # the batch axis is lhs's first free dimension
        numbers = ((shift(lc), tuple(rc)), (shift(lb), tuple(rb)))
        out = bind("dot_general", lhs, rhs, dimension_numbers=numbers)
        return _to_front(out, len(lb)), 0
    numbers = ((tuple(lc), shift(rc)), (tuple(lb), shift(rb)))  # rhs's first free dimension
    out = bind("dot_general", lhs, rhs, dimension_numbers=numbers)
    lhs_free = aval(lhs).ndim - len(lc) - len(lb)
    return _to_front(out, len(lb) + lhs_free), 0


def _to_front(x, axis):
    return moveaxis(x, axis, 0)


@BATCH.register("einsum")
def _einsum(args, dims, *, axis_size, subscripts):
    """A fresh label for the batch axis, on the batched terms and in front of the output."""
    lhs, arrow, rhs = subscripts.partition("->")
    terms = lhs.split(",")
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in subscripts)
    if not arrow:
        rhs = _implicit_output(terms)
    terms = [letter + t if d is not None else t for t, d in zip(terms, dims)]
    return bind("einsum", *args, subscripts=f"{','.join(terms)}->{letter}{rhs}"), 0


def _implicit_output(terms) -> str:
    """NumPy's implicit output: the ellipsis, then the labels used once, in ASCII order."""
    named = [c for t in terms for c in t.replace("...", "")]
    once = "".join(sorted(c for c in set(named) if named.count(c) == 1))
    return ("..." if any("..." in t for t in terms) else "") + once
