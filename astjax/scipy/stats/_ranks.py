"""mode and rankdata: statistics of the sorted data, with static output shapes."""
from typing import NamedTuple

import astjax.numpy as jnp

from ... import config


class ModeResult(NamedTuple):
    mode: object
    count: object


def _only_propagate(nan_policy):
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"nan_policy must be 'propagate', 'omit' or 'raise', not {nan_policy!r}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"nan_policy={nan_policy!r} (only 'propagate', as JAX)")


def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most common value along axis (the smallest of equally common ones) and its count."""
    _only_propagate(nan_policy)
    x = jnp.asarray(a)
    if axis is None:
        x, axis = jnp.ravel(x), 0
        kept = (1,) * jnp.ndim(a) if keepdims else ()
    else:
        axis = axis % max(x.ndim, 1)
        kept = tuple(1 if i == axis else s for i, s in enumerate(x.shape)) if keepdims else \
            tuple(s for i, s in enumerate(x.shape) if i != axis)
    if x.shape[axis] == 0:
        nan = jnp.full(kept, jnp.nan, config.default_dtype("float"))
        return ModeResult(nan, jnp.zeros(kept, config.default_dtype("float")))
    s = jnp.sort(jnp.moveaxis(x, axis, -1), axis=-1)
    counts = jnp.sum(s[..., :, None] == s[..., None, :], axis=-1)
    where = jnp.argmax(counts, axis=-1)
    value = jnp.take_along_axis(s, where[..., None], axis=-1)[..., 0]
    return ModeResult(value.reshape(kept), jnp.max(counts, axis=-1).reshape(kept))


_METHODS = ("average", "min", "max", "dense", "ordinal")


def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks of the data (from 1), ties resolved by method, along axis (flattened if None).
    Any nan makes every rank of its slice nan."""
    _only_propagate(nan_policy)
    if method not in _METHODS:
        raise ValueError(f"rankdata: method must be one of {_METHODS}, not {method!r}")
    if axis is not None:
        return jnp.apply_along_axis(lambda v: _ranks(v, method), axis, jnp.asarray(a))
    return _ranks(jnp.ravel(jnp.asarray(a)), method)


def _ranks(a, method):
    dtype = config.default_dtype("float")
    order = jnp.argsort(a, stable=True)
    s = a[order]
    if method == "ordinal":
        ranks = jnp.zeros(a.shape, dtype).at[order].set(jnp.arange(1, a.size + 1, dtype=dtype))
    else:
        first = jnp.searchsorted(s, a, side="left")
        if method == "dense":
            fresh = jnp.concatenate([jnp.ones(min(a.size, 1), bool), s[1:] != s[:-1]])
            ranks = jnp.cumsum(fresh)[first].astype(dtype)
        else:
            low = (first + 1).astype(dtype)
            high = jnp.searchsorted(s, a, side="right").astype(dtype)
            ranks = {"min": low, "max": high, "average": 0.5 * (low + high)}[method]
    return jnp.where(jnp.any(jnp.isnan(a)), jnp.nan, ranks)
