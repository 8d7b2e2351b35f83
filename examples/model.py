"""A tiny model in JAX style: a soft-clipped activation, a Newton square root, a logistic
prediction and its loss gradient, with Python `if` and `while` on array values inside `jit`.

Run it as written, or through the static compiler:

    astjax transform examples/model.py -o out && python out/model.py

The jaxtyping annotations give each function a signature (dtype and named sizes), so
`astjax transform` writes its compiled form, the gradient included, as plain NumPy source in
out/model.py: read it, step through it, run it without the compiler.  jaxtyping itself need not
be installed: with `from __future__ import annotations` the annotations are never evaluated.
"""
from __future__ import annotations

import numpy as np

import astjax as jax
import astjax.numpy as jnp

try:
    from jaxtyping import Array, Float64
except ImportError:  # the annotations are strings; astjax reads them from the source
    pass


@jax.jit
def softclip(x: Float64[Array, "n"], limit: float):
    """tanh activations, scaled down when their sum exceeds `limit` (an `if` on an array)."""
    y = jnp.tanh(x) * limit
    if jnp.sum(y) > limit:
        y = y / jnp.sum(y) * limit
    return y


@jax.jit
def newton_sqrt(a: Float64[Array, "n"]):
    """Elementwise square root of a positive `a` by Newton's method, iterated until the
    residual is tiny (a `while` on an array)."""
    x = jnp.where(a > 1.0, a, 1.0)
    r = x * x - a
    while jnp.sum(r * r) > 1e-20:
        x = x - r / (2.0 * x)
        r = x * x - a
    return x


def logistic(w: Float64[Array, "d"], b: float, x: Float64[Array, "n d"]):
    """Probability of class 1 for each row of `x` under weights `w` and bias `b`."""
    z = jnp.sum(x * w, axis=1) + b
    return 1.0 / (1.0 + jnp.exp(-z))


predict = jax.jit(logistic)


def cross_entropy(w: Float64[Array, "d"], b: float, x: Float64[Array, "n d"],
                  labels: Float64[Array, "n"]):
    """Mean negative log-likelihood of the labels (0 or 1) under the logistic model."""
    p = logistic(w, b, x)
    return -jnp.mean(labels * jnp.log(p) + (1.0 - labels) * jnp.log(1.0 - p))


loss_grad = jax.jit(jax.grad(cross_entropy))  # the gradient is generated source too


if __name__ == "__main__":
    calm, strong = np.array([0.5, -1.0, 2.0, 0.25]), np.array([0.5, 1.0, 2.0, 0.25])
    print("softclip(calm)   =", softclip(calm, 2.0))
    print("softclip(strong) =", softclip(strong, 2.0), "(scaled to sum to 2)")
    print("newton_sqrt      =", newton_sqrt(np.array([0.25, 2.0, 9.0, 10.0])))
    w = np.array([1.5, -0.5])
    features = np.array([[1.0, 2.0], [0.0, 0.0], [-1.0, 3.0]])
    print("predict          =", predict(w, 0.1, features))
    labels = np.array([1.0, 0.0, 0.0])
    print("d loss / d w     =", loss_grad(w, 0.1, features, labels))
