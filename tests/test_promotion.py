"""Dtype promotion follows JAX's with jax_enable_x64 on (astjax's default): an integer or bool
array meeting a float32 one gives float32 (NumPy: float64), float functions of int32 compute
in float32, integer cumulative sums keep their dtype. JAX is the oracle, compiled on every
backend and eagerly."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import promotion_cases as cases

jax = pytest.importorskip("jax")

I = np.arange(-3, 5, dtype=np.int32)
F = np.linspace(-2.0, 2.0, 8).astype(np.float32)


def _assert_same(got, want):
    got, want = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun", cases.CASES, ids=lambda f: f.__name__)
def test_dtypes_and_values_as_jax(fun, backend):
    with jax.enable_x64(True):
        want = jax.jit(fun)(I, F)
    _assert_same(astjax.jit(fun, backend=backend)(I, F), want)


def test_eager_math_promotes_as_jax():
    with jax.enable_x64(True):
        j = jax.numpy
        want = [j.asarray(I) + j.asarray(F), j.asarray(I) < F, j.sqrt(j.asarray(I)),
                j.asarray(I) / 2, j.mean(j.asarray(I)), j.add(I, F)]
    got = [jnp.asarray(I) + jnp.asarray(F), jnp.asarray(I) < F, jnp.sqrt(jnp.asarray(I)),
           jnp.asarray(I) / 2, jnp.mean(jnp.asarray(I)), jnp.add(I, F)]
    _assert_same(got, want)


def test_result_type_and_promote_types_as_jax():
    with jax.enable_x64(True):
        j = jax.numpy
        pairs = [(np.int32, np.float32), (np.int64, np.float32), (np.uint8, np.float16),
                 (np.int32, np.int64), (np.bool_, np.float32), (np.int64, np.complex64),
                 (np.float32, np.float64)]
        for a, b in pairs:
            assert jnp.promote_types(a, b) == j.promote_types(a, b), (a, b)
        assert jnp.result_type(I, F) == j.result_type(I, F)
        assert jnp.result_type(I, 1.5) == j.result_type(I, 1.5)
