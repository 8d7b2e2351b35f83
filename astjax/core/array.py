"""What eager astjax returns: a NumPy array that also has JAX's array conveniences.

`x.at[i].set(v)` (a functional update, filled in by astjax.numpy through `Array.ops`) and
`x.block_until_ready()` work on results outside `jit`, as they do on JAX arrays, so code
ported from JAX runs eagerly too. Everything else is NumPy's ndarray, with two differences
that make its math JAX's: an integer array meeting a float one takes its dtype (int64 +
float32 is float32, not NumPy's float64), and without `jax_enable_x64` results are 32-bit
(int32 * 0.5 is float32).
"""
import numpy as np

from . import placement
from .avals import canonical_value, promoted_values, x64


class Array(np.ndarray):
    ops: dict = {}

    def astype(self, dtype, *args, **kwargs):
        return _wrap(np.ndarray.astype(self, dtype, *args, **kwargs))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [_plain(x) for x in inputs]
        if method == "__call__" and (ufunc in _PROMOTED or ufunc in _FLOAT_ONLY) and \
                all(isinstance(x, _OPERANDS) for x in inputs):
            inputs = promoted_values(inputs, ufunc in _FLOAT_ONLY)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrapped(result)

    @property
    def at(self):
        return Array.ops["at"](self)

    def block_until_ready(self):
        return self

    # What JAX programs ask of an array's placement: astjax's arrays are host memory, on
    # jaxlib's first CPU device (see astjax.devices).
    def devices(self) -> set:
        return {placement.host_device()}

    @property
    def sharding(self):
        return placement.host_sharding()

    @property
    def addressable_shards(self) -> list:
        return [placement.Shard(placement.host_device(), (slice(None),) * self.ndim, 0, self)]

    is_fully_addressable = True
    is_fully_replicated = True

    def copy_to_host_async(self) -> None:
        return None

    def ptp(self, axis=None, out=None, keepdims=False):  # (JAX's arrays kept it; NumPy 2's not)
        return _wrap(np.ptp(_plain(self), axis=axis, keepdims=keepdims))


def _canonical_method(name: str):
    """NumPy's method `name`, its results in their canonical dtypes (see `_wrap`)."""
    method = getattr(np.ndarray, name)

    def canonical(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        return _wrapped(result)
    canonical.__name__, canonical.__doc__ = name, method.__doc__
    return canonical


# NumPy's methods that give indices (int64 on a 64-bit machine) and call no ufunc on the way:
# without jax_enable_x64 they are int32, as JAX's are.
for _name in ("argmax", "argmin", "argsort", "argpartition", "nonzero", "searchsorted"):
    setattr(Array, _name, _canonical_method(_name))


# NumPy's ufuncs for the primitives that promote their operands (core/bind.py's PROMOTED).
_PROMOTED = frozenset({np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide,
                       np.remainder, np.fmod, np.power, np.float_power, np.maximum, np.minimum,
                       np.fmax, np.fmin, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2,
                       np.copysign, np.nextafter, np.heaviside, np.divmod, np.equal,
                       np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal})


# NumPy's ufuncs that compute in floats whatever their operands (core/bind.py's FLOAT_ONLY).
_FLOAT_ONLY = frozenset({np.true_divide, np.sqrt, np.cbrt, np.exp, np.exp2, np.expm1, np.log,
                         np.log1p, np.log2, np.log10, np.sin, np.cos, np.tan, np.arcsin,
                         np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh,
                         np.arccosh, np.arctanh, np.arctan2, np.logaddexp})


_OPERANDS = (np.ndarray, np.generic, bool, int, float, complex)  # (what promotion reads)


def as_array(value) -> Array:
    return np.asarray(value).view(Array)


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, Array) else x


def _wrapped(result):
    """A NumPy result as Array math returns it: each of a tuple's parts, or the one (`_wrap`)."""
    return tuple(_wrap(r) for r in result) if isinstance(result, tuple) else _wrap(result)


def _wrap(result):
    """A ufunc's result as Array math returns it: an Array (0-d for a scalar, as NumPy gives
    a subclass), in its canonical dtype."""
    if not x64():
        result = canonical_value(result)
    if isinstance(result, (np.ndarray, np.generic)):
        return np.asarray(result).view(Array)
    return result
