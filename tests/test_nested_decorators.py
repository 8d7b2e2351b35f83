"""Decorators on functions defined inside a compiled function apply as Python applies them
(innermost first): `@jax.jit`, `@jax.checkpoint`, `@jax.custom_jvp`, `@functools.partial(...)`
and the program's own, checked against the same code written without them."""
import functools

import numpy as np

import astjax
import astjax.numpy as jnp


def twice(f):
    """A decorator of the program's own."""
    return lambda x: f(f(x))


def decorated(x):
    @astjax.jit
    def scaled(a):
        return a * 2.0

    @functools.partial(astjax.jit, static_argnums=1)
    def power(a, n):
        return a ** n

    @astjax.checkpoint
    def smooth(a):
        return jnp.sin(a) * a

    @astjax.custom_jvp
    def clipped(a):
        return jnp.clip(a, -1.0, 1.0)

    @clipped.defjvp
    def clipped_jvp(primals, tangents):
        (a,), (t,) = primals, tangents
        return clipped(a), t  # (a straight-through gradient)

    @twice
    @astjax.jit
    def shifted(a):
        return a + 0.5
    return jnp.sum(scaled(x) + power(x, 3) + smooth(x) + clipped(x * 3.0) + shifted(x))


def plain(x):
    return np.sum(x * 2.0 + x ** 3 + np.sin(x) * x + np.clip(x * 3.0, -1.0, 1.0) + x + 1.0)


def test_nested_decorators_apply_as_in_python():
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(astjax.jit(decorated)(x), plain(x), rtol=1e-12)
    grad = astjax.jit(astjax.grad(decorated))(x)
    want = 2.0 + 3 * x ** 2 + np.cos(x) * x + np.sin(x) + 3.0 + 1.0  # (clip: straight through)
    np.testing.assert_allclose(grad, want, rtol=1e-12)
