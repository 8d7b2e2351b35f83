"""lax.conv_general_dilated against JAX (the oracle) over layouts, strides, padding modes,
dilations and groups, on every backend; its derivatives against central differences (float64)
and its batching against a Python loop."""
import numpy as np
import pytest

import astjax
import conv_cases as cases
from astjax import lax

jax = pytest.importorskip("jax")

NAMES = sorted(cases.CONFIGS)


def operands(name, seed=0):
    lhs, rhs, _ = cases.CONFIGS[name]
    rng = np.random.default_rng(seed)
    return rng.normal(size=lhs), rng.normal(size=rhs)


def jax_conv(name, x, w):
    with jax.enable_x64(True):
        return np.asarray(jax.lax.conv_general_dilated(x, w, **cases.CONFIGS[name][2]))


@pytest.mark.parametrize("backend", [None, "numpy", "numba", "xla"])
@pytest.mark.parametrize("name", NAMES)
def test_matches_jax(name, backend):
    x, w = operands(name)
    fun = cases.make(name)
    got = fun(x, w) if backend is None else astjax.jit(fun, backend=backend)(x, w)
    np.testing.assert_allclose(np.asarray(got), jax_conv(name, x, w), rtol=1e-10, atol=1e-12)


def numeric_gradient(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        g[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return g


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_finite_differences(name):
    x, w = operands(name, 1)
    u = np.random.default_rng(2).normal(size=jax_conv(name, x, w).shape)
    loss = cases.weighted_loss(name)
    gx, gw = astjax.jit(astjax.grad(loss, argnums=(0, 1)))(x, w, u)
    np.testing.assert_allclose(gx, numeric_gradient(lambda v: float(loss(v, w, u)), x),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(gw, numeric_gradient(lambda v: float(loss(x, v, u)), w),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_forward_mode_matches_reverse(name):
    x, w = operands(name, 3)
    fun = cases.make(name)
    tx, tw = operands(name, 4)
    _, tangent = astjax.jvp(fun, (x, w), (tx, tw))
    want = jax_conv(name, tx, w) + jax_conv(name, x, tw)  # linear in each operand
    np.testing.assert_allclose(np.asarray(tangent), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
@pytest.mark.parametrize("name", NAMES)
def test_vmap_matches_a_loop(name, in_axes):
    rng = np.random.default_rng(5)
    lhs, rhs, _ = cases.CONFIGS[name]
    xs = rng.normal(size=(3,) + lhs) if in_axes[0] == 0 else rng.normal(size=lhs)
    ws = rng.normal(size=(3,) + rhs) if in_axes[1] == 0 else rng.normal(size=rhs)
    got = astjax.jit(astjax.vmap(cases.make(name), in_axes=in_axes))(xs, ws)
    for k in range(3):
        x = xs[k] if in_axes[0] == 0 else xs
        w = ws[k] if in_axes[1] == 0 else ws
        np.testing.assert_allclose(np.asarray(got)[k], jax_conv(name, x, w), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
def test_small_cnn_gradient_on_every_backend(backend):
    rng = np.random.default_rng(6)
    params = {"w1": rng.normal(size=(3, 3, 1, 4)) * 0.3, "b1": np.zeros(4),
              "w2": rng.normal(size=(2, 2, 4, 2)) * 0.3}
    images = rng.normal(size=(5, 8, 8, 1))
    grad = astjax.jit(astjax.grad(cases.small_cnn), backend=backend)(params, images)
    want = astjax.jit(astjax.grad(cases.small_cnn), backend="numpy")(params, images)
    for key in params:
        np.testing.assert_allclose(grad[key], want[key], rtol=1e-9, atol=1e-12)
    eps = 1e-6
    step = np.zeros_like(params["w2"])
    step[1, 0, 2, 1] = eps
    bump = lambda s: float(cases.small_cnn({**params, "w2": params["w2"] + s}, images))  # noqa
    np.testing.assert_allclose(grad["w2"][1, 0, 2, 1], (bump(step) - bump(-step)) / (2 * eps),
                               rtol=1e-6)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_conv_transpose_matches_jax(padding):
    rng = np.random.default_rng(7)
    x, w = rng.normal(size=(2, 5, 5, 3)), rng.normal(size=(3, 3, 3, 4))
    got = lax.conv_transpose(x, w, (2, 2), padding)
    with jax.enable_x64(True):
        want = np.asarray(jax.lax.conv_transpose(x, w, (2, 2), padding))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n, m", [(7, 3), (3, 7), (5, 5), (6, 1)])
def test_convolve_and_correlate_match_numpy(n, m, mode):
    rng = np.random.default_rng(n * 10 + m)
    a, v = rng.normal(size=n), rng.normal(size=m)
    np.testing.assert_allclose(astjax.numpy.convolve(a, v, mode), np.convolve(a, v, mode),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(astjax.numpy.correlate(a, v, mode), np.correlate(a, v, mode),
                               rtol=1e-12, atol=1e-12)
