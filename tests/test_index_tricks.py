"""jnp.mgrid, ogrid, r_, c_, s_ and index_exp against NumPy's (and JAX's where installed),
eagerly and inside jit."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp


def grids(x):
    dense = jnp.mgrid[0:3, 0:4]
    sparse = jnp.ogrid[0:3, 0:4]
    points = jnp.mgrid[-1:1:5j]
    return dense * x, sparse[0] + sparse[1] * x, points


def joined(a, b):
    return jnp.r_[a, 0.5, b, 0:3], jnp.c_[a, b], jnp.c_[jnp.stack([a, b], 1), a], a[jnp.s_[1:]]


def _numpy_grids(x):
    sparse = np.ogrid[0:3, 0:4]
    return np.mgrid[0:3, 0:4] * x, sparse[0] + sparse[1] * x, np.mgrid[-1:1:5j]


def _numpy_joined(a, b):
    return (np.r_[a, 0.5, b, 0:3], np.c_[a, b], np.c_[np.stack([a, b], 1), a], a[np.s_[1:]])


@pytest.mark.parametrize("compiled", [False, True])
def test_grids_and_concatenation_as_numpy(compiled):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    run = astjax.jit if compiled else (lambda f: f)
    for got, want in zip(run(grids)(2.0), _numpy_grids(2.0)):
        np.testing.assert_allclose(got, want)
        assert np.shape(got) == np.shape(want)
    for got, want in zip(run(joined)(a, b), _numpy_joined(a, b)):
        np.testing.assert_allclose(got, want)
        assert np.shape(got) == np.shape(want)
    assert jnp.index_exp[1:2] == np.index_exp[1:2]


def test_mgrid_as_jax():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        want = jax.numpy.mgrid[0:2, 0:3]
    got = jnp.mgrid[0:2, 0:3]
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_string_directives_are_a_clear_error():
    with pytest.raises(astjax.AstjaxError, match="string directive"):
        jnp.r_["0,2", np.ones(2)]
