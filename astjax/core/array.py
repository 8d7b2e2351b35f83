"""What eager astjax returns: a NumPy array that also has JAX's array conveniences.

`x.at[i].set(v)` (a functional update, filled in by astjax.numpy through `Array.ops`) and
`x.block_until_ready()` work on results outside `jit`, as they do on JAX arrays, so code
ported from JAX runs eagerly too. Everything else is NumPy's ndarray, with one difference:
without `jax_enable_x64`, NumPy math on Arrays gives 32-bit results (int32 * 0.5 is float32,
as in JAX, not NumPy's float64).
"""
import numpy as np

from .avals import canonical_value, x64


class Array(np.ndarray):
    ops: dict = {}

    def astype(self, dtype, *args, **kwargs):
        return _wrap(np.ndarray.astype(self, dtype, *args, **kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [_plain(x) for x in inputs]
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return tuple(_wrap(r) for r in result) if isinstance(result, tuple) else _wrap(result)

    @property
    def at(self):
        return Array.ops["at"](self)

    def block_until_ready(self):
        return self


def as_array(value) -> Array:
    return np.asarray(value).view(Array)


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, Array) else x


def _wrap(result):
    """A ufunc's result as Array math returns it: an Array (0-d for a scalar, as NumPy gives
    a subclass), in its canonical dtype."""
    if not x64():
        result = canonical_value(result)
    if isinstance(result, (np.ndarray, np.generic)):
        return np.asarray(result).view(Array)
    return result
