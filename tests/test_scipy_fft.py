"""jax.scipy.fft's DCT of type 2 and its inverse, against SciPy's (eager and compiled, 1-D and
n-D, padded and truncated, both norms, complex inputs) and JAX's dtypes."""
import numpy as np
import pytest
import scipy.fft

import astjax
import astjax.scipy.fft as fft

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("name", ["dct", "idct"])
@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("shape, axis, n", [((8,), -1, None), ((7,), -1, None),
                                            ((3, 6), 0, None), ((3, 5), 1, 8), ((4, 6), -1, 4)])
def test_one_axis_as_scipy(name, norm, shape, axis, n):
    x = RNG.standard_normal(shape)
    want = getattr(scipy.fft, name)(x, 2, n, axis, norm)
    np.testing.assert_allclose(getattr(fft, name)(x, 2, n, axis, norm), want, atol=1e-12)
    compiled = astjax.jit(lambda v: getattr(fft, name)(v, 2, n, axis, norm))
    np.testing.assert_allclose(compiled(x), want, atol=1e-12)


@pytest.mark.parametrize("name", ["dctn", "idctn"])
@pytest.mark.parametrize("s, axes", [(None, None), (None, (0, 2)), ((3, 7), None), ((5,), (1,))])
def test_several_axes_as_scipy(name, s, axes):
    x = RNG.standard_normal((4, 5, 6))
    for norm in (None, "ortho"):
        want = getattr(scipy.fft, name)(x, 2, s, axes, norm)
        np.testing.assert_allclose(getattr(fft, name)(x, 2, s, axes, norm), want, atol=1e-12)


def test_complex_inputs_dtypes_and_round_trip():
    x = RNG.standard_normal((3, 6))
    np.testing.assert_allclose(fft.dct(x + 1j * x[::-1]), scipy.fft.dct(x + 1j * x[::-1]),
                               atol=1e-12)
    x32 = x.astype(np.float32)
    assert fft.dct(x32).dtype == fft.idctn(x32).dtype == np.float32  # (as JAX's)
    round_trip = astjax.jit(lambda v: fft.idct(fft.dct(v, norm="ortho"), norm="ortho"))
    np.testing.assert_allclose(round_trip(x), x, atol=1e-12)


def test_gradient_is_the_transposed_transform():
    x = RNG.standard_normal(6)
    w = RNG.standard_normal(6)
    grad = astjax.grad(lambda v: (fft.dct(v, norm="ortho") * w).sum())(x)
    np.testing.assert_allclose(grad, scipy.fft.idct(w, norm="ortho"), atol=1e-12)  # orthonormal


def test_other_types_and_norms_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="type 2"):
        fft.dct(np.ones(4), type=1)
    with pytest.raises(ValueError, match="norm"):
        fft.idct(np.ones(4), norm="forward")
