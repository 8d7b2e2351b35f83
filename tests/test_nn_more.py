"""jax.nn.initializers against JAX (the same key gives JAX's values, eagerly and compiled on
every backend), and the block-scaled matmuls against their definition (JAX runs them on GPUs
only)."""
import numpy as np
import pytest

import astjax
import nn_more_cases as cases

jax = pytest.importorskip("jax")


# every initializer on NumPy and XLA; two on Numba, whose cold compile of all twelve (unrolled
# Gram-Schmidt, samplers) takes over a minute
@pytest.mark.parametrize("backend, fun", [("numpy", cases.initialise), ("xla", cases.initialise),
                                          ("numba", cases.initialise_two)])
def test_initializers_as_jax(backend, fun):
    got = astjax.jit(fun, backend=backend, static_argnums=0)(3)
    with jax.enable_x64(True):
        want = fun(3)
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, k
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=f"output {k}")


def test_complex_initializers_as_jax():
    from astjax.nn import initializers
    key = astjax.random.PRNGKey(1)
    with jax.enable_x64(True):
        for name in ("glorot_uniform", "glorot_normal", "he_normal"):
            got = getattr(initializers, name)()(key, (4, 5), np.complex128)
            want = getattr(jax.nn.initializers, name)()(jax.random.PRNGKey(1), (4, 5),
                                                        np.complex128)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14, err_msg=name)


def test_scaled_matmul_is_its_definition():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 64)), rng.normal(size=(2, 4, 64))
    sa, sb = rng.uniform(0.5, 2, (2, 3, 2)), rng.uniform(0.5, 2, (2, 4, 4))
    out, dot = astjax.jit(cases.scaled_products)(a, b, sa, sb)
    want = np.einsum("bmk,bnk->bmn", a * np.repeat(sa, 32, -1), b * np.repeat(sb, 16, -1))
    assert out.dtype == np.float32 and out.shape == (2, 3, 4)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)  # (summed in float32)
    np.testing.assert_allclose(dot, (a[0] @ b[0].T).astype(np.float32), rtol=1e-5)


def test_block_scaled_quantization_is_refused_clearly():
    from astjax import nn
    config = nn.get_scaled_dot_general_config("mxfp8")
    assert config.block_size == 32 and config.mode == "mxfp8"
    with pytest.raises(NotImplementedError, match="float8"):
        nn.scaled_dot_general(np.ones((2, 3)), np.ones((3, 2)), (((1,), (0,)), ((), ())),
                              configs=[config, config])
