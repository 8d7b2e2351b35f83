"""Reductions with axis/keepdims, softmax and logsumexp, moments, cumulative sums."""
import numpy as np

import astjax.numpy as jnp
from astjax import nn

from .registry import Case, array, composite, one_array, positive, shapes


def logsumexp_rows(x):
    m = jnp.max(x, axis=-1, keepdims=True)
    return jnp.squeeze(m, axis=-1) + jnp.log(jnp.sum(jnp.exp(x - m), axis=-1))


def softmax(x):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


def nn_softmax_logsumexp(x):
    return nn.softmax(x, axis=0), nn.log_softmax(x), nn.logsumexp(x, axis=-1)


def layer_norm(x):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5)


def moments(x):
    return jnp.mean(x, axis=0), jnp.std(x, axis=0), jnp.min(x, axis=0), jnp.max(x, axis=0)


def np_rms(x):
    return np.sqrt(np.mean(x ** 2) + 1e-12) + np.sum(x, axis=0) * np.prod(np.tanh(x))


def weighted_mean(x, w):
    w = jnp.exp(w)
    return jnp.sum(x * w, axis=0) / jnp.sum(w, axis=0)


def methods_chain(x):
    return x.sum(axis=0) + x.mean() * x.max(axis=0) - x.min(keepdims=True).reshape(()) \
        + (x ** 2).sum(axis=-1).mean()


def running_mean(x):
    n = jnp.arange(1, x.shape[0] + 1, dtype=x.dtype)
    return jnp.cumsum(x, axis=0) / n.reshape((-1,) + (1,) * (x.ndim - 1))


def argmax_onehot(x):
    idx = jnp.argmax(x, axis=-1)
    onehot = (jnp.arange(x.shape[-1]) == idx[..., None]).astype(x.dtype)
    return idx, onehot, jnp.sum(onehot * x, axis=-1)


def all_any_counts(x):
    pos = x > 0
    return jnp.all(pos, axis=0), jnp.any(pos), jnp.sum(pos), jnp.where(jnp.any(pos, axis=-1), 1.0, -1.0)


def entropy(p):
    p = p / jnp.sum(p, axis=-1, keepdims=True)
    return -jnp.sum(p * jnp.log(p), axis=-1)


def _weighted_args(dtype):
    @composite
    def make(draw, dtype):
        s = draw(shapes(1, 2))
        return draw(array(dtype, s)), draw(array(dtype, s, -1.0, 1.0))
    return make(dtype)


CASES = [
    Case("logsumexp_rows", logsumexp_rows, one_array(), jax=True, tags=("reduction",)),
    Case("softmax", softmax, one_array(), jax=True, tags=("reduction", "softmax")),
    Case("nn_softmax_logsumexp", nn_softmax_logsumexp, one_array(), jax=True,
         tags=("reduction", "softmax", "nn", "tuple-out")),
    Case("layer_norm", layer_norm, one_array(shapes(1, 2, min_side=2)), jax=True,
         tags=("reduction",)),
    Case("moments", moments, one_array(shapes(1, 2, min_side=2)), differentiable=False, jax=True,
         tags=("reduction", "tuple-out")),
    Case("np_rms", np_rms, one_array(), tags=("reduction", "numpy")),
    Case("weighted_mean", weighted_mean, _weighted_args, jax=True, tags=("reduction",)),
    Case("methods_chain", methods_chain, one_array(shapes(2, 2)), differentiable=False,
         jax=True, tags=("reduction", "methods")),
    Case("running_mean", running_mean, one_array(), jax=True, tags=("reduction", "cumulative")),
    Case("argmax_onehot", argmax_onehot, one_array(), differentiable=False, jax=True,
         tags=("reduction", "integer-out")),
    Case("all_any_counts", all_any_counts, one_array(shapes(2, 2)), differentiable=False,
         jax=True, tags=("reduction", "bool-out")),
    Case("entropy", entropy, lambda dtype: positive(dtype, shapes(1, 2)).map(lambda p: (p,)),
         jax=True, tags=("reduction",)),
]
