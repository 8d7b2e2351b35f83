"""Batching rules for elementwise, reduction, shape, creation, contraction and sorting primitives.

The batch axis is always axis 0 of a batched operand, so most rules only shift the axis
parameters by one. Indexing rules are in `batch_rules_indexing`, control flow in
`batch_rules_control`; the contract is in `batch_rules_util`.
"""
from astjax.core.bind import aval, bind
from astjax.core.table import PRIMITIVES

from .util import batched, lift_rank, moveaxis, rule, shift


# ---------------------------------------------------------------- elementwise (with broadcasting)
def _elementwise(name):
    def batch_rule(args, dims, *, axis_size, **params):
        rank = max(aval(x).ndim - (d is not None) for x, d in zip(args, dims))
        lifted = [x if d is None else lift_rank(x, rank) for x, d in zip(args, dims)]
        return bind(name, *lifted, **params), 0
    return batch_rule


for _name, _prim in PRIMITIVES.items():
    if _prim.kind == "elementwise":  # includes select, clamp, convert, stop_gradient
        rule(_name)(_elementwise(_name))


# ---------------------------------------------------------------- reductions
def _reduction(name):
    return lambda args, dims, *, axis_size, axes: (bind(name, args[0], axes=shift(axes)), 0)


def _along_axis(name, key):
    """Primitives with one axis parameter (`axis` or `dimension`): shift it past the batch."""
    def batch_rule(args, dims, *, axis_size, **params):
        params[key] = params[key] + 1
        return bind(name, args[0], **params), 0
    return batch_rule


for _name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or"):
    rule(_name)(_reduction(_name))
for _name in ("argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"):
    rule(_name)(_along_axis(_name, "axis"))
for _name in ("sort", "argsort"):
    rule(_name)(_along_axis(_name, "dimension"))


# ---------------------------------------------------------------- shape
@rule("broadcast_in_dim")
def _broadcast_in_dim(args, dims, *, axis_size, shape, broadcast_dimensions):
    return bind("broadcast_in_dim", args[0], shape=(axis_size,) + tuple(shape),
                broadcast_dimensions=(0,) + shift(broadcast_dimensions)), 0


@rule("reshape")
def _reshape(args, dims, *, axis_size, new_sizes):
    return bind("reshape", args[0], new_sizes=(axis_size,) + tuple(new_sizes)), 0


@rule("transpose")
def _transpose(args, dims, *, axis_size, permutation):
    return bind("transpose", args[0], permutation=(0,) + shift(permutation)), 0


@rule("rev")
def _rev(args, dims, *, axis_size, dimensions):
    return bind("rev", args[0], dimensions=shift(dimensions)), 0


@rule("slice")
def _slice(args, dims, *, axis_size, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * len(start_indices)
    return bind("slice", args[0], start_indices=(0,) + tuple(start_indices),
                limit_indices=(axis_size,) + tuple(limit_indices),
                strides=(1,) + tuple(strides)), 0


@rule("pad")
def _pad(args, dims, *, axis_size, config):
    (x, value), (x_dim, value_dim) = args, dims
    x = batched(x, x_dim, axis_size)
    config = ((0, 0, 0),) + tuple(config)
    if value_dim is None:
        return bind("pad", x, value, config=config), 0
    # A per-lane padding value: pad with zeros, then fill the padding from a mask.
    padded = bind("pad", x, bind("convert", 0, dtype=aval(x).dtype.name), config=config)
    inside = bind("pad", bind("full", True, shape=aval(x).shape, dtype="bool"), False,
                  config=config)
    fill = lift_rank(bind("convert", value, dtype=aval(x).dtype.name), aval(padded).ndim - 1)
    return bind("select", inside, padded, fill), 0


@rule("concatenate")
def _concatenate(args, dims, *, axis_size, dimension):
    parts = [batched(x, d, axis_size) for x, d in zip(args, dims)]
    return bind("concatenate", *parts, dimension=dimension + 1), 0


# ---------------------------------------------------------------- creation
@rule("iota")
def _iota(args, dims, *, axis_size, **params):
    raise AssertionError("iota has no operands, so it is never batched")


@rule("full")
def _full(args, dims, *, axis_size, shape, dtype):
    value = bind("convert", args[0], dtype=dtype)
    return bind("broadcast_in_dim", value, shape=(axis_size,) + tuple(shape),
                broadcast_dimensions=(0,)), 0


# ---------------------------------------------------------------- contraction
@rule("dot_general")
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


@rule("einsum")
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
