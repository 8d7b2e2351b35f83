"""The rest of jax.numpy, run as JAX programs: values (and dtypes of the results, as JAX gives
them with float64 enabled) on every backend against JAX itself, and NumPy's own answer for the
functions whose result length depends on data (eagerly)."""
import numpy as np
import pytest

import astjax
import numpy_more_cases as cases

jax = pytest.importorskip("jax")

X = np.random.default_rng(5).uniform(-2, 2, size=12)
X_NAN = X.copy()
X_NAN[3] = np.nan


def _input(fun):
    return X_NAN if fun in cases.NAN_CASES else X


def _leaves(out):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(out)]


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun", cases.CASES, ids=lambda f: f.__name__)
def test_values_as_jax(fun, backend):
    x = _input(fun)
    with jax.enable_x64(True):
        want = _leaves(jax.jit(fun)(x))
    got = _leaves(astjax.jit(fun, backend=backend)(x))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, (i, g.shape, w.shape)
        assert g.dtype.kind == w.dtype.kind, (i, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"output {i}")


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
def test_padding_modes_differentiate_as_jax(mode):
    """Each padded element's cotangent flows back to the element it copies."""
    weights = np.linspace(0.5, 2.0, 12 + 9)

    def loss(v):
        return astjax.numpy.sum(astjax.numpy.pad(v, (4, 5), mode=mode) ** 2 * weights)

    def jax_loss(v):
        return jax.numpy.sum(jax.numpy.pad(v, (4, 5), mode=mode) ** 2 * weights)
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(jax_loss)(X))
    np.testing.assert_allclose(astjax.grad(loss)(X), want, rtol=1e-12)
