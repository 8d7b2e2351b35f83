"""lax.reduce with any combining function, reduce_xor, top_k and approx_max_k/approx_min_k."""
import numpy as np

import astjax.numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand
from ..numpy._util import bind
from ..tree_util import tree_flatten, tree_unflatten

# combining functions lax.reduce recognises, with the primitive that reduces by them
_MONOIDS = {"add": "reduce_sum", "mul": "reduce_prod", "max": "reduce_max", "min": "reduce_min",
            "bitwise_and": "reduce_and", "bitwise_or": "reduce_or"}


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """operands folded with computation over dimensions, starting from init_values.

    A known monoid (lax.add, lax.max, jnp.multiply, ...) is one reduction primitive; any other
    function is folded pairwise, halving the reduced axis each round (so it must be
    associative, as XLA assumes too)."""
    flat, tree = tree_flatten(operands)
    inits, _ = tree_flatten(init_values)
    flat = [_as_operand(x) for x in flat]
    dims = tuple(sorted(u.normalize_axis(d, u.ndim(flat[0])) for d in dimensions))
    name = getattr(computation, "__name__", "")
    monoid = _MONOIDS.get(name) or _MONOIDS.get({"multiply": "mul", "maximum": "max",
                                                  "minimum": "min"}.get(name, ""))
    if len(flat) == 1 and monoid is not None:
        out = bind(monoid, flat[0], axes=dims)
        return tree_unflatten(tree, [computation(np.asarray(inits[0], u.dtype_of(out)), out)])
    outs = _fold(flat, inits, computation, dims, tree)
    return tree_unflatten(tree, outs)


def _fold(flat, inits, computation, dims, tree):
    """Pairwise folding: reduced axes merged into a last axis, padded with the init values to a
    power of two, then halved until one element is left."""
    moved = [jnp.moveaxis(x, dims, tuple(range(u.ndim(x) - len(dims), u.ndim(x))))
             if dims else x for x in flat]
    kept = u.shape(moved[0])[:u.ndim(moved[0]) - len(dims)]
    moved = [jnp.reshape(x, kept + (-1,)) for x in moved]
    n = u.shape(moved[0])[-1]
    width = 1
    while width < max(n, 1):
        width *= 2
    moved = [bind("pad", x, np.asarray(i, u.dtype_of(x)),
                  config=((0, 0, 0),) * len(kept) + ((0, width - n, 0),))
             if width != n else x for x, i in zip(moved, inits)]

    def combine(a, b):
        out, _ = tree_flatten(computation(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        return out

    while width > 1:
        width //= 2
        moved = combine([x[..., :width] for x in moved], [x[..., width:] for x in moved])
    start = [jnp.full(kept + (1,), i, u.dtype_of(x)) for x, i in zip(moved, inits)]
    return [x[..., 0] for x in combine(start, moved)]


def reduce_xor(operand, axes):
    x = _as_operand(operand)
    if u.kind(x) == "b":
        ones = jnp.sum(jnp.astype(x, np.int64), axis=tuple(axes))
        return bind("ne", bind("rem", ones, 2), 0)
    return reduce(x, np.zeros((), u.dtype_of(x)), jnp.bitwise_xor, axes)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The k largest values along the dimension and their indices (exact: recall 1)."""
    return _top_k_along(_as_operand(operand), k, reduction_dimension, largest=True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    return _top_k_along(_as_operand(operand), k, reduction_dimension, largest=False)


def top_k(operand, k):
    """The k largest entries along the last axis and their indices (ties: lower index first)."""
    x = _as_operand(operand)
    n = u.shape(x)[-1]
    k = int(k)
    if not 0 <= k <= n:
        raise ValueError(f"top_k: k={k} is not in [0, {n}]")
    ascending = jnp.argsort(jnp.flip(x, -1), axis=-1, stable=True)
    order = (n - 1) - jnp.flip(ascending, -1)  # descending, equal values in index order
    index = order[..., :k].astype(np.int32)
    return jnp.take_along_axis(x, index, axis=-1), index


def _top_k_along(x, k, dimension, largest):
    axis = u.normalize_axis(dimension, u.ndim(x))
    moved = jnp.moveaxis(x, axis, -1)
    values, index = top_k(moved if largest else bind("neg", moved), k)
    values = values if largest else bind("neg", values)
    return jnp.moveaxis(values, -1, axis), jnp.moveaxis(index, -1, axis)
