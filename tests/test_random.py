"""astjax.random against JAX 0.10.2 (the oracle): keys, split, fold_in, bits and uniform are
bit-identical; normal agrees to float tolerance (erf_inv's last bits). Also under jit (NumPy
and Numba backends) and vmap over keys, and lax's shifts against NumPy."""
import numpy as np
import pytest

import astjax
import astjax.lax as lax
from astjax import random

jax = pytest.importorskip("jax")
jrandom = jax.random

SEEDS = [0, 1, 42, 2 ** 31 - 1, 123456789]
SHAPES = [(), (1,), (3,), (7,), (4, 5), (2, 3, 4)]


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_split_and_fold_in_are_jax_bit_for_bit(seed):
    key = random.PRNGKey(seed)
    np.testing.assert_array_equal(key, np.asarray(jrandom.PRNGKey(seed)))
    for num in (2, 3, 10):
        np.testing.assert_array_equal(random.split(key, num),
                                      np.asarray(jrandom.split(jrandom.PRNGKey(seed), num)))
    for data in (0, 1, 7, 2 ** 20 + 3):
        np.testing.assert_array_equal(random.fold_in(key, data),
                                      np.asarray(jrandom.fold_in(jrandom.PRNGKey(seed), data)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_bits_and_uniform_are_jax_bit_for_bit(seed, shape):
    key, jkey = random.PRNGKey(seed), jrandom.PRNGKey(seed)
    np.testing.assert_array_equal(random.bits(key, shape, np.uint32),
                                  np.asarray(jrandom.bits(jkey, shape, np.uint32)))
    got = random.uniform(key, shape, np.float32, -2.0, 3.0)
    want = np.asarray(jrandom.uniform(jkey, shape, np.float32, -2.0, 3.0))
    assert got.dtype == np.float32 and got.shape == shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(5,), (3, 4)])
def test_normal_agrees_with_jax(shape):
    key, jkey = random.PRNGKey(3), jrandom.PRNGKey(3)
    got = random.normal(key, shape, np.float32)
    np.testing.assert_allclose(got, np.asarray(jrandom.normal(jkey, shape, np.float32)),
                               rtol=2e-6, atol=2e-6)


def sample(key, scale):
    k1, k2 = random.split(key)
    return random.uniform(k1, (6,), np.float32) * scale + random.normal(k2, (6,), np.float32)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_under_jit_and_vmap_of_keys(backend):
    key = random.PRNGKey(11)
    eager = sample(key, np.float32(2.0))
    np.testing.assert_allclose(astjax.jit(sample, backend=backend)(key, np.float32(2.0)), eager,
                               rtol=1e-6, atol=1e-6)
    keys = random.split(key, 4)
    batched = astjax.vmap(sample, in_axes=(0, None))(keys, np.float32(2.0))
    for k in range(4):
        np.testing.assert_allclose(batched[k], sample(keys[k], np.float32(2.0)), rtol=1e-6,
                                   atol=1e-6)


def test_grad_through_a_sample_differentiates_the_scale():
    key = random.PRNGKey(5)
    g = astjax.grad(lambda s: (random.normal(key, (4,), np.float64) * s).sum())(2.0)
    np.testing.assert_allclose(g, np.sum(random.normal(key, (4,), np.float64)), rtol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_shifts_follow_numpy_within_range_and_xla_outside(backend):
    x = np.array([1, 2, 0xFFFFFFFF, 0x80000000, 12345], np.uint32)
    s = np.array([0, 3, 31, 13, 7], np.uint32)

    def shifts(x, s):
        return lax.shift_left(x, s), lax.shift_right_logical(x, s)

    left, right = astjax.jit(shifts, backend=backend)(x, s)
    np.testing.assert_array_equal(left, x << s)
    np.testing.assert_array_equal(right, x >> s)
    y = np.array([-8, 5, -1], np.int32)
    np.testing.assert_array_equal(lax.shift_right_logical(y, np.int32(1)),
                                  (y.view(np.uint32) >> 1).view(np.int32))
    np.testing.assert_array_equal(lax.shift_right_arithmetic(y, np.int32(1)), y >> 1)
    np.testing.assert_array_equal(lax.shift_left(x, np.uint32(32)), np.zeros_like(x))
