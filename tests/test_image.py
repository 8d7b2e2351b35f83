"""jax.image.resize against JAX's own: every method, up and down, with and without antialias,
float and integer images, and the gradient of a linear resize."""
import numpy as np
import pytest

import astjax
from astjax.errors import ShapeError

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(3)
IMAGES = {"nhwc": (RNG.standard_normal((2, 6, 5, 3)), [(2, 12, 10, 3), (2, 3, 2, 3), (2, 9, 5, 3)]),
          "float32": (RNG.standard_normal((7, 4)).astype(np.float32), [(14, 8), (3, 2), (7, 9)]),
          "uint8": (RNG.integers(0, 255, (5, 6)).astype(np.uint8), [(10, 3), (2, 13)])}
METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "area"]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("name", list(IMAGES))
def test_resize_matches_jax(name, backend):
    image, shapes = IMAGES[name]

    def resized(x, shape, method, antialias):
        return astjax.image.resize(x, shape, method, antialias=antialias)
    compiled = astjax.jit(resized, static_argnums=(1, 2, 3), backend=backend)
    for shape in shapes:
        for method in METHODS:
            for antialias in (True, False):
                with jax.enable_x64(True):
                    want = np.asarray(jax.image.resize(image, shape, method,
                                                       antialias=antialias))
                got = compiled(image, shape, method, antialias)
                assert got.shape == want.shape
                if image.dtype.kind == "f":  # (an integer image: float64 under x64, NumPy's rule)
                    assert got.dtype == want.dtype
                tol = 1e-5 if want.dtype == np.float32 else 1e-10
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol,
                                           err_msg=f"{shape} {method} {antialias}")


def upsampled_energy(x):
    return astjax.numpy.sum(astjax.image.resize(x, (2, 12, 10, 3), "linear") ** 2)


def test_resize_differentiates_as_jax():
    image = IMAGES["nhwc"][0]

    def jax_energy(x):
        return jax.numpy.sum(jax.image.resize(x, (2, 12, 10, 3), "linear") ** 2)
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(jax_energy)(image))
    np.testing.assert_allclose(astjax.jit(astjax.grad(upsampled_energy))(image), want,
                               rtol=1e-10)


def test_unknown_methods_are_clear_errors():
    with pytest.raises(ShapeError, match="unknown method"):
        astjax.image.resize(np.ones((2, 2)), (4, 4), "spline")
    with pytest.raises(ShapeError, match="rank"):
        astjax.image.resize(np.ones((2, 2)), (4,), "linear")
