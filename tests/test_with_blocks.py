"""with-blocks inside compiled functions run as in Python at compile time (their managers are
entered around the body, which may hold converted control flow), and the context managers JAX
programs put there (named_scope, default_matmul_precision) exist."""
import contextlib
import functools

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import UnsupportedSyntaxError

class Tagged:
    """A context manager of the program's own (entered at compile time, like JAX's)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self.name.upper()

    def __exit__(self, *exc):
        return False


def scoped(x):
    with astjax.named_scope("block"), astjax.default_matmul_precision("highest"):
        y = jnp.tanh(x) @ x.T
    with Tagged("tag") as tag, contextlib.nullcontext(2.0) as two:
        if jnp.sum(y) > 0:  # (an array-dependent if inside: converted to cond)
            z = y * two
        else:
            z = -y
        label = tag
    return z, label


def returns_inside(x):
    for i in range(3):
        with Tagged(f"step{i}"):
            x = x + i
    with contextlib.nullcontext():
        return jnp.sum(x ** 2)


def test_with_blocks_run_around_their_bodies():
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    z, label = astjax.jit(scoped)(x)
    y = np.tanh(x) @ x.T
    np.testing.assert_allclose(z, y * 2.0 if y.sum() > 0 else -y)
    assert label == "TAG"
    np.testing.assert_allclose(astjax.jit(astjax.grad(returns_inside))(x), 2 * (x + 3))


def not_a_manager(x):
    with x:
        return x


def test_a_with_on_something_else_is_a_clear_error():
    with pytest.raises(UnsupportedSyntaxError, match="not a context manager") as caught:
        astjax.jit(not_a_manager)(np.ones(3))
    assert "test_with_blocks.py" in str(caught.value)


def wrapped_square(f):
    @functools.wraps(f)
    def inner(x):
        return f(x) ** 2
    return inner


@wrapped_square
def shifted(x):
    return x + 1.0


def test_a_functools_wraps_wrapper_compiles_from_its_own_source():
    np.testing.assert_allclose(astjax.jit(shifted)(np.arange(3.0)), (np.arange(3.0) + 1) ** 2)
    np.testing.assert_allclose(astjax.jit(jnp.vectorize(lambda a, b: jnp.maximum(a, b) * 2))(
        np.arange(6.0).reshape(2, 3), np.array([1.0, 4.0, 2.0])), [[2, 8, 4], [6, 8, 10]])


def poly(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc * x + 1.0, jnp.zeros_like(x))


def test_ahead_of_time_lower_and_compile():
    jitted = astjax.jit(poly, static_argnums=1)
    lowered = jitted.lower(astjax.ShapeDtypeStruct((4,), np.float64), 3)
    assert "def poly" in lowered.as_text()
    compiled = lowered.compile()
    x = np.array([0.0, 1.0, 2.0, -1.0])
    np.testing.assert_allclose(compiled(x, 3), x * x + x + 1.0)
    assert astjax.jit(poly, static_argnums=1).trace(x, 2).lower().compile()(x, 2).shape == (4,)


def test_device_get_gives_numpy_arrays():
    out = astjax.device_get(astjax.jit(lambda a: {"s": a.sum(), "t": (a * 2,)})(np.ones(3)))
    assert type(out["s"]) is np.ndarray and type(out["t"][0]) is np.ndarray
    assert out["s"] == 3.0
