"""jax.scipy.signal's convolutions against JAX's own: every mode, ranks 1 to 3, either input
the larger, complex and integer inputs, and gradients."""
import numpy as np
import pytest

import astjax
from astjax.errors import ShapeError

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(0)
PAIRS = {
    "1d": (RNG.standard_normal(9), RNG.standard_normal(4)),
    "1d_second_larger": (RNG.standard_normal(3), RNG.standard_normal(7)),
    "2d": (RNG.standard_normal((6, 5)), RNG.standard_normal((3, 2))),
    "2d_second_larger": (RNG.standard_normal((2, 3)), RNG.standard_normal((4, 5))),
    "2d_same_shape": (RNG.standard_normal((4, 4)), RNG.standard_normal((4, 4))),
    "3d": (RNG.standard_normal((5, 4, 3)), RNG.standard_normal((2, 3, 2))),
    "complex": (RNG.standard_normal(6) + 1j * RNG.standard_normal(6), RNG.standard_normal(3)),
    "integers": (np.arange(5), np.array([1, 2])),
}


def _names(a):
    return ["convolve", "correlate"] + (["convolve2d", "correlate2d"] if a.ndim == 2 else [])


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("pair", list(PAIRS))
def test_convolutions_match_jax(pair, backend):
    a, b = PAIRS[pair]
    for name in _names(a):
        for mode in ("full", "same", "valid"):
            def apply(x, y, name=name, mode=mode):
                return getattr(astjax.scipy.signal, name)(x, y, mode=mode)
            with jax.enable_x64(True):
                want = np.asarray(getattr(jax.scipy.signal, name)(a, b, mode=mode))
            got = astjax.jit(apply, backend=backend)(a, b)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, mode)
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=f"{name} {mode}")


def smoothed_energy(x, k):
    return astjax.numpy.sum(astjax.scipy.signal.convolve2d(x, k, mode="same") ** 2)


def test_convolution_gradients_match_jax_and_numba_agrees():
    x, k = PAIRS["2d"]

    def jax_energy(x, k):
        return jax.numpy.sum(jax.scipy.signal.convolve2d(x, k, mode="same") ** 2)
    with jax.enable_x64(True):
        want = [np.asarray(g) for g in jax.grad(jax_energy, argnums=(0, 1))(x, k)]
    for backend in ("numpy", "numba"):
        got = astjax.jit(astjax.grad(smoothed_energy, argnums=(0, 1)), backend=backend)(x, k)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10)


def test_unsupported_arguments_are_clear_errors():
    x, k = PAIRS["2d"]
    with pytest.raises(ShapeError, match="boundary='fill'"):
        astjax.scipy.signal.convolve2d(x, k, boundary="wrap")
    with pytest.raises(ShapeError, match="smaller in every dimension"):
        astjax.scipy.signal.convolve(np.ones((2, 5)), np.ones((3, 2)))
    with pytest.raises(ShapeError, match="mode="):
        astjax.scipy.signal.convolve(x, k, mode="circular")


FFT_PAIRS = [(PAIRS["1d"], None), (PAIRS["1d_second_larger"], None), (PAIRS["2d"], None),
             ((RNG.standard_normal((4, 6)), RNG.standard_normal((4, 3))), (1,)),
             (PAIRS["complex"], None), (PAIRS["integers"], None)]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("case", range(len(FFT_PAIRS)))
def test_fftconvolve_matches_jax(case, backend):
    (a, b), axes = FFT_PAIRS[case]
    for mode in ("full", "same", "valid"):
        def apply(x, y, mode=mode):
            return astjax.scipy.signal.fftconvolve(x, y, mode=mode, axes=axes)
        with jax.enable_x64(True):
            want = np.asarray(jax.scipy.signal.fftconvolve(a, b, mode=mode, axes=axes))
        got = astjax.jit(apply, backend=backend)(a, b)
        assert got.dtype == want.dtype and got.shape == want.shape, mode
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=mode)
