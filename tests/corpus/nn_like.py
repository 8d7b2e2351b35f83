"""Small neural-network code: layers with parameter dicts, losses, attention, an SGD step."""
import numpy as np
from hypothesis import strategies as st

import astjax.numpy as jnp
from astjax import nn

from .registry import Case, array, composite, side


def dense(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


def mlp(params, x):
    """params: a list of {"w", "b"} layers; returns a dict (pytree out)."""
    h = x
    for layer in params[:-1]:
        h = nn.gelu(h @ layer["w"] + layer["b"])
    logits = h @ params[-1]["w"] + params[-1]["b"]
    return {"logits": logits, "probs": nn.softmax(logits, axis=-1)}


def cross_entropy(logits, labels):
    """labels: one-hot rows."""
    return -jnp.mean(jnp.sum(labels * nn.log_softmax(logits, axis=-1), axis=-1))


def attention(q, k, v):
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    return nn.softmax(scores, axis=-1) @ v


def layer_norm_affine(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    centered = x - mu
    var = (centered ** 2).mean(axis=-1, keepdims=True)
    return gamma * centered / jnp.sqrt(var + 1e-5) + beta


def sgd_step(params, grads, lr):
    """lr is static (a Python float)."""
    return {k: params[k] - lr * grads[k] for k in params}


def residual_block(params, x):
    h = nn.relu(x @ params["w1"])
    return x + h @ params["w2"], jnp.sum(h > 0)


def _layer(draw, dtype, n_in, n_out):
    return {"w": draw(array(dtype, (n_in, n_out), -1.0, 1.0)),
            "b": draw(array(dtype, (n_out,), -1.0, 1.0))}


@composite
def _dense_args(draw, dtype):
    batch, n_in, n_out = draw(side()), draw(side()), draw(side())
    return _layer(draw, dtype, n_in, n_out), draw(array(dtype, (batch, n_in)))


@composite
def _mlp_args(draw, dtype):
    sizes = [draw(side()) for _ in range(draw(side(2, 3)) + 1)]
    params = [_layer(draw, dtype, a, b) for a, b in zip(sizes, sizes[1:])]
    return params, draw(array(dtype, (draw(side()), sizes[0])))


@composite
def _xent_args(draw, dtype):
    batch, classes = draw(side()), draw(side(2, 4))
    labels = np.eye(classes, dtype=dtype)[[draw(side(0, classes - 1)) for _ in range(batch)]]
    return draw(array(dtype, (batch, classes))), labels


@composite
def _attention_args(draw, dtype):
    n, m, d, dv = (draw(side()) for _ in range(4))
    return (draw(array(dtype, (n, d))), draw(array(dtype, (m, d))),
            draw(array(dtype, (m, dv))))


@composite
def _layer_norm_args(draw, dtype):
    batch, n = draw(side()), draw(side(2, 4))
    return (draw(array(dtype, (batch, n))), draw(array(dtype, (n,))),
            draw(array(dtype, (n,))))


@composite
def _sgd_args(draw, dtype):
    n = draw(side())
    keys = ("b", "w")
    params = {k: draw(array(dtype, (n,))) for k in keys}
    grads = {k: draw(array(dtype, (n,))) for k in keys}
    return params, grads, draw(st.sampled_from([0.1, 0.01]))


@composite
def _residual_args(draw, dtype):
    batch, n, h = draw(side()), draw(side()), draw(side())
    return ({"w1": draw(array(dtype, (n, h), -1.0, 1.0)),
             "w2": draw(array(dtype, (h, n), -1.0, 1.0))},
            draw(array(dtype, (batch, n))))


CASES = [
    Case("dense", dense, _dense_args, jax=True, tags=("nn", "pytree-in")),
    Case("mlp", mlp, _mlp_args, jax=True, tags=("nn", "pytree-in", "pytree-out")),
    Case("cross_entropy", cross_entropy, _xent_args, jax=True, tags=("nn", "softmax")),
    Case("attention", attention, _attention_args, jax=True, tags=("nn", "softmax", "matmul")),
    Case("layer_norm_affine", layer_norm_affine, _layer_norm_args, jax=True,
         tags=("nn", "methods")),
    Case("sgd_step", sgd_step, _sgd_args, static_argnums=(2,), jax=True,
         tags=("nn", "pytree-in", "pytree-out", "static")),
    Case("residual_block", residual_block, _residual_args, differentiable=False, jax=True,
         tags=("nn", "pytree-in", "tuple-out")),
]
