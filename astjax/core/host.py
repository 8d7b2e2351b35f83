"""The user's Python functions as compiled code calls them (`pure_callback`, `io_callback`,
`debug.callback`): flat NumPy arrays in, flat arrays out, checked against the shapes and
dtypes the user declared.

A `HostFunction` lives in its process: it is compared by identity and never pickled, so a
function that calls one is compiled afresh in a new process rather than read from the disk
cache. Every backend calls it the same way: `conform(fn(*operands), results, fn)`.
"""
import numpy as np

from ..errors import TransformError
from .array import as_array


class HostFunction:
    """`fun(*args, **kwargs)` called with the operands unflattened by `in_tree` (as Arrays);
    gives its results' leaves (in `out_tree`'s structure; None: the results are ignored)."""

    printed_as_constant = True  # (generated code reads it from the module's constants)

    def __init__(self, fun, in_tree, out_tree, loc=None, what: str = "pure_callback"):
        self.fun, self.in_tree, self.out_tree, self.loc, self.what = \
            fun, in_tree, out_tree, loc, what

    def __call__(self, *operands) -> list:
        from astjax.tree_util import tree_flatten, tree_unflatten
        args, kwargs = tree_unflatten(self.in_tree, [as_array(x) for x in operands])
        out = self.fun(*args, **kwargs)
        if self.out_tree is None:
            return []
        leaves, tree = tree_flatten(out)
        if tree != self.out_tree:
            raise self.error(f"returned {tree}, where its result_shape_dtypes say "
                             f"{self.out_tree}")
        return leaves

    def error(self, message: str) -> TransformError:
        name = getattr(self.fun, "__qualname__", repr(self.fun))
        return TransformError(f"the {self.what} function {name} {message}", self.loc,
                              hint="return arrays of the shapes and dtypes declared in "
                                   "result_shape_dtypes")

    def __reduce__(self):
        raise TypeError("a host function belongs to its process and is not pickled")


class PerExample:
    """A host function batched by calling it once per example (vmap_method "sequential"):
    `batched[i]` says whether operand i has the batch axis first; `results` are the avals of
    one example's results."""

    printed_as_constant = True

    def __init__(self, inner, batched: tuple, results: tuple):
        self.inner, self.batched, self.results = inner, batched, results
        self.loc, self.what = inner.loc, inner.what

    def __call__(self, *operands) -> list:
        size = next(x.shape[0] for x, b in zip(operands, self.batched) if b)
        examples = [conform(self.inner(*[x[i] if b else x for x, b in zip(operands, self.batched)]),
                            self.results, self.inner)
                    for i in range(size)]
        if not self.results:
            return []
        if size == 0:
            return [np.empty((0,) + tuple(a.shape), a.dtype) for a in self.results]
        return [np.stack([e[k] for e in examples]) for k in range(len(self.results))]

    def error(self, message: str) -> TransformError:
        return self.inner.error(message)

    def __reduce__(self):
        raise TypeError("a host function belongs to its process and is not pickled")


def conform(leaves: list, results: tuple, fn) -> list:
    """The results as NumPy arrays of the declared avals: a Python number takes the declared
    dtype; an array of another shape or dtype is the user's mistake (as in JAX)."""
    if len(leaves) != len(results):
        raise fn.error(f"returned {len(leaves)} arrays, where {len(results)} were declared")
    out = []
    for k, (leaf, aval) in enumerate(zip(leaves, results)):
        array = np.asarray(leaf, aval.dtype) if isinstance(leaf, (bool, int, float, complex)) \
            else np.asarray(leaf)
        if not _same_shape(array.shape, aval.shape):
            raise fn.error(f"returned an array of shape {array.shape} as result {k}, "
                           f"declared {tuple(aval.shape)}")
        if array.dtype != aval.dtype:
            raise fn.error(f"returned {array.dtype.name} as result {k}, declared "
                           f"{aval.dtype.name}")
        out.append(array)
    return out


def _same_shape(shape: tuple, declared: tuple) -> bool:
    """Equal where the declared sizes are known (a symbolic size matches any)."""
    return len(shape) == len(declared) and all(
        not isinstance(d, (int, np.integer)) or int(d) == n for n, d in zip(shape, declared))
