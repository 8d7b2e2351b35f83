"""What eager astjax returns: a NumPy array that also has JAX's array conveniences.

`x.at[i].set(v)` (a functional update, filled in by astjax.numpy through `Array.ops`) and
`x.block_until_ready()` work on results outside `jit`, as they do on JAX arrays, so code
ported from JAX runs eagerly too. Everything else is NumPy's ndarray.
"""
import numpy as np


class Array(np.ndarray):
    ops: dict = {}

    @property
    def at(self):
        return Array.ops["at"](self)

    def block_until_ready(self):
        return self


def as_array(value) -> Array:
    return np.asarray(value).view(Array)
