"""Complex numbers: real/imag/conj/complex as primitives, abs and angle of complex values, and
JAX's convention for complex derivatives (the VJP is the transpose of the JVP, unconjugated:
grad of a real f is df/dRe - i df/dIm), against JAX and central differences on every backend."""
import numpy as np
import pytest

import astjax
import complex_cases as cases
from astjax.errors import AstjaxError
from test_fft import central_differences

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(5)
Z = RNG.normal(size=4) + 1j * RNG.normal(size=4)
X = RNG.normal(size=4)
BACKENDS = ["numpy", "numba", "xla"]
REAL_ARGUMENT = {cases.phase_rotation, cases.built_from_parts}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun", cases.SCALAR_LOSSES, ids=lambda f: f.__name__)
def test_gradients_as_jax(fun, backend):
    arg = X if fun in REAL_ARGUMENT else Z
    with jax.enable_x64(True):
        want_value, want = fun(arg), np.asarray(jax.grad(fun)(arg))
    np.testing.assert_allclose(astjax.jit(fun, backend=backend)(arg), want_value, rtol=1e-12)
    got = astjax.jit(astjax.grad(fun), backend=backend)(arg)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    if backend == "numpy":
        np.testing.assert_allclose(got, central_differences(astjax.jit(fun), arg), rtol=1e-6,
                                   atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_complex_values_and_mixed_arguments(backend):
    with jax.enable_x64(True):
        want = np.asarray(cases.complex_values(Z))
        want_grads = jax.grad(cases.mixed_real_complex, argnums=(0, 1))(X, Z)
    np.testing.assert_allclose(astjax.jit(cases.complex_values, backend=backend)(Z), want,
                               rtol=1e-12)
    got = astjax.jit(astjax.grad(cases.mixed_real_complex, argnums=(0, 1)), backend=backend)(X, Z)
    for g, w in zip(got, want_grads):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_holomorphic_derivatives_as_jax():
    import jax.numpy as jjnp

    def h(z):
        return jjnp.sum(z * z * jjnp.exp(z))

    def elementwise(z):
        return jjnp.sin(z) * z

    with jax.enable_x64(True):
        np.testing.assert_allclose(astjax.grad(h, holomorphic=True)(Z),
                                   jax.grad(h, holomorphic=True)(Z), rtol=1e-12)
        for transform in ("jacfwd", "jacrev"):
            got = getattr(astjax, transform)(elementwise, holomorphic=True)(Z)
            want = getattr(jax, transform)(elementwise, holomorphic=True)(Z)
            np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(AstjaxError, match="holomorphic=True"):
        astjax.grad(h)(Z)
    with pytest.raises(AstjaxError, match="complex inputs"):
        astjax.grad(h, holomorphic=True)(X)


def test_vmap_of_complex_gradients_matches_a_loop():
    zs = RNG.normal(size=(3, 4)) + 1j * RNG.normal(size=(3, 4))
    got = astjax.vmap(astjax.grad(cases.imag_of_product))(zs)
    for k in range(3):
        np.testing.assert_allclose(got[k], astjax.grad(cases.imag_of_product)(zs[k]), rtol=1e-12)


def test_numpy_names_on_complex_and_real_values():
    import astjax.numpy as jnp
    assert jnp.iscomplexobj(Z) and jnp.isrealobj(X)
    np.testing.assert_array_equal(jnp.iscomplex(np.array([1 + 0j, 1j])), [False, True])
    np.testing.assert_allclose(jnp.angle(Z, deg=True), np.angle(Z, deg=True), rtol=1e-12)
    np.testing.assert_allclose(jnp.angle(X), np.angle(X))
    np.testing.assert_array_equal(jnp.imag(X), np.zeros(4))
    z64 = Z.astype(np.complex64)
    out = astjax.jit(lambda z: jnp.abs(z) + jnp.real(jnp.conj(z)), backend="numba")(z64)
    assert out.dtype == np.float32
