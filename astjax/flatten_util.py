"""`jax.flatten_util.ravel_pytree`: a pytree's leaves as one flat vector (in their common
dtype), and the function that rebuilds the pytree, each leaf in its own shape and dtype, from
such a vector (an optimizer's view of a model's parameters)."""
import math

import numpy as np

from . import numpy as jnp
from .numpy import _util as u
from .tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree):
    """(flat vector, unravel): `unravel(flat)` is a pytree like `pytree`."""
    leaves, treedef = tree_flatten(pytree)
    arrays = [jnp.asarray(leaf) for leaf in leaves]
    shapes = tuple(tuple(u.shape(a)) for a in arrays)
    dtypes = tuple(np.dtype(u.dtype_of(a)) for a in arrays)
    if not arrays:
        return jnp.zeros((0,), np.float32), Unravel(treedef, shapes, dtypes)
    common = jnp.result_type(*dtypes)
    flat = jnp.concatenate([jnp.ravel(a).astype(common) for a in arrays])
    return flat, Unravel(treedef, shapes, dtypes)


class Unravel:
    """The pytree of the leaves a flat vector holds, in order (hashable, as JAX's is)."""

    def __init__(self, treedef, shapes: tuple, dtypes: tuple):
        self.treedef, self.shapes, self.dtypes = treedef, shapes, dtypes

    def __call__(self, flat):
        leaves, start = [], 0
        for shape, dtype in zip(self.shapes, self.dtypes):
            size = math.prod(shape)
            leaf = jnp.reshape(flat[start:start + size], shape)
            leaves.append(leaf.astype(dtype) if u.dtype_of(leaf) != dtype else leaf)
            start += size
        return tree_unflatten(self.treedef, leaves)

    def _key(self):
        return self.treedef, self.shapes, self.dtypes

    def __eq__(self, other):
        return isinstance(other, Unravel) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())
