"""jax.scipy.ndimage.map_coordinates against JAX's own: orders 0 and 1, every mode, float and
integer arrays, coordinates at halves and outside the array, and gradients."""
import numpy as np
import pytest

import astjax
from astjax.errors import ShapeError

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(2)
ARRAYS = {"float_2d": RNG.standard_normal((5, 7)), "int_2d": RNG.integers(0, 50, (4, 6)),
          "float_1d": RNG.standard_normal(9)}
MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]


def _coordinates(arr):
    coords = [RNG.uniform(-3, s + 2, 40) for s in arr.shape]
    coords[0][:4] = [0.5, -0.5, 1.5, 2.5]  # (halves round away from zero)
    return coords


def sample(arr, coords, order, mode):
    return astjax.scipy.ndimage.map_coordinates(arr, coords, order, mode=mode, cval=-2.0)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("name", list(ARRAYS))
def test_map_coordinates_matches_jax(name, backend):
    arr = ARRAYS[name]
    coords = _coordinates(arr)
    compiled = astjax.jit(sample, static_argnums=(2, 3), backend=backend)
    for order in (0, 1):
        for mode in MODES:
            with jax.enable_x64(True):
                want = np.asarray(jax.scipy.ndimage.map_coordinates(arr, coords, order,
                                                                    mode=mode, cval=-2.0))
            got = compiled(arr, coords, order, mode)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{order} {mode}")


def smooth_read(arr, coords):
    return astjax.numpy.sum(sample(arr, coords, 1, "reflect") ** 2)


def test_linear_reads_differentiate_as_jax():
    arr = ARRAYS["float_2d"]
    coords = _coordinates(arr)

    def jax_read(a, cs):
        return jax.numpy.sum(jax.scipy.ndimage.map_coordinates(a, cs, 1, mode="reflect",
                                                                cval=-2.0) ** 2)
    with jax.enable_x64(True):
        want = jax.grad(jax_read, argnums=(0, 1))(arr, coords)
    got = astjax.jit(astjax.grad(smooth_read, argnums=(0, 1)))(arr, coords)
    np.testing.assert_allclose(got[0], np.asarray(want[0]), rtol=1e-10)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-10, atol=1e-12)


def test_unsupported_orders_and_modes_are_clear_errors():
    arr = ARRAYS["float_1d"]
    with pytest.raises(ShapeError, match="order"):
        astjax.scipy.ndimage.map_coordinates(arr, [np.ones(3)], 3)
    with pytest.raises(ShapeError, match="mode"):
        astjax.scipy.ndimage.map_coordinates(arr, [np.ones(3)], 1, mode="grid-wrap")
