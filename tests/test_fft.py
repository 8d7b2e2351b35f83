"""jnp.fft and lax.fft on the one `fft` primitive: values against JAX (the oracle, float64) on
every backend, gradients against JAX's and central differences, batching against a loop."""
import numpy as np
import pytest

import astjax
import fft_cases as cases

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(11)
BACKENDS = ["numpy", "numba", "xla"]


def sample(kind, shape):
    x = RNG.normal(size=shape)
    return x if kind == "real" else x + 1j * RNG.normal(size=shape)


def jax_run(fun, *args):
    with jax.enable_x64(True):
        return np.asarray(jax.jit(fun)(*args))


def central_differences(f, x, eps=1e-6):
    """d f / d x_i for a real x; for a complex x, JAX's convention df/dRe - i df/dIm."""
    out = np.zeros(x.shape, x.dtype)
    for i in np.ndindex(x.shape):
        for unit in ([1.0] if x.dtype.kind == "f" else [1.0, 1j]):
            step = np.zeros_like(x)
            step[i] = eps * unit
            slope = (float(f(x + step)) - float(f(x - step))) / (2 * eps)
            out[i] += slope if unit == 1.0 else -1j * slope
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun, kind, shape", cases.VALUES, ids=[f.__name__ for f, *_ in cases.VALUES])
def test_values_as_jax(fun, kind, shape, backend):
    x = sample(kind, shape)
    got = np.asarray(astjax.jit(fun, backend=backend)(x))
    want = jax_run(fun, x)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


GRADS = [(f, "real", s) for f, s in cases.GRADS] + [(f, "complex", s) for f, s in cases.COMPLEX_GRADS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun, kind, shape", GRADS, ids=[f.__name__ for f, *_ in GRADS])
def test_gradients_as_jax_and_differences(fun, kind, shape, backend):
    x = sample(kind, shape)
    got = astjax.jit(astjax.grad(fun), backend=backend)(x)
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(fun)(x))
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    if backend == "numpy":
        np.testing.assert_allclose(got, central_differences(astjax.jit(fun), x), rtol=1e-5,
                                   atol=1e-6)


def test_forward_mode_matches_reverse():
    x = sample("real", (6,))
    np.testing.assert_allclose(astjax.jacfwd(cases.power_loss)(x),
                               astjax.grad(cases.power_loss)(x), rtol=1e-10)
    np.testing.assert_allclose(astjax.jacfwd(cases.odd_inverse_loss)(sample("real", (3, 5))).shape,
                               (3, 5))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_vmap_matches_a_loop(backend):
    import astjax.numpy as jnp

    def per_signal(x):
        return jnp.fft.rfft(x), jnp.fft.ifft(x * 1j), jnp.fft.irfft(jnp.fft.rfft(x) ** 2, n=7)

    xs = sample("real", (3, 7))
    got = astjax.jit(astjax.vmap(per_signal, in_axes=1, out_axes=0), backend=backend)(xs.T)
    for k in range(3):
        for g, w in zip(got, per_signal(xs[k])):
            np.testing.assert_allclose(g[k], w, rtol=1e-10, atol=1e-12)
    grads = astjax.vmap(astjax.grad(cases.power_loss))(xs[:, :6])
    for k in range(3):
        np.testing.assert_allclose(grads[k], astjax.grad(cases.power_loss)(xs[k, :6]), rtol=1e-10)


def test_float32_gives_complex64():
    import astjax.numpy as jnp
    x = sample("real", (8,)).astype(np.float32)
    for backend in BACKENDS:
        spectrum, back = astjax.jit(lambda v: (jnp.fft.rfft(v), jnp.fft.irfft(jnp.fft.rfft(v))),
                                    backend=backend)(x)
        assert spectrum.dtype == np.complex64 and back.dtype == np.float32
        np.testing.assert_allclose(back, x, rtol=1e-5, atol=1e-5)


def test_bad_arguments_are_clear():
    import astjax.numpy as jnp
    from astjax import lax
    with pytest.raises(ValueError, match="norm"):
        jnp.fft.fft(np.ones(4), norm="sideways")
    with pytest.raises(Exception, match="complex operand"):
        lax.fft(np.ones(4), "FFT", (4,))
    with pytest.raises(Exception, match="fft_type"):
        lax.fft(np.ones(4) + 0j, "DCT", (4,))
