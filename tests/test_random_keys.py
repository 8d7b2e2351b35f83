"""Typed keys and the threefry2x32 primitive, against JAX 0.10.2 as the oracle.

threefry2x32 is one primitive with a lowering per backend: its bits must equal JAX's own
threefry_2x32 on every backend, broadcasting scalar key words against counter arrays, and
under vmap. Typed keys (`random.key`) give the same bits as JAX's typed keys, and survive jit
(as arguments and results), vmap, scan and Python loops on every backend."""
import re

import numpy as np
import pytest

import astjax
from astjax import dtypes, lax, random
from astjax.random.keys import KeyArray

jax = pytest.importorskip("jax")
from jax.extend.random import threefry_2x32  # noqa: E402  (the oracle's own cipher)

BACKENDS = ["numpy", "numba", "xla"]


def cipher(k1, k2, x1, x2):
    return random.threefry2x32(k1, k2, x1, x2)


def words(seed, shape):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2 ** 32, shape, dtype=np.uint64).astype(np.uint32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5)])
def test_threefry_is_jax_bit_for_bit(backend, shape):
    k1, k2 = words(1, ()), words(2, ())
    x1, x2 = words(3, shape), words(4, shape)
    want = np.asarray(threefry_2x32(np.stack([k1, k2]), np.concatenate(
        [x1.ravel(), x2.ravel()]))).reshape((2,) + shape)
    got = astjax.jit(cipher, backend=backend)(k1, k2, x1, x2)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_threefry_broadcasts_and_batches(backend):
    keys = words(5, (4, 2))
    x1, x2 = words(6, (3,)), words(7, (1,))

    def lanes(keys, x1, x2):
        return astjax.vmap(lambda k: cipher(k[0], k[1], x1, x2))(keys)

    got = astjax.jit(lanes, backend=backend)(keys, x1, x2)
    for lane in range(4):
        want = cipher(keys[lane, 0], keys[lane, 1], x1, np.broadcast_to(x2, (3,)))
        np.testing.assert_array_equal(got[0][lane], want[0])
        np.testing.assert_array_equal(got[1][lane], want[1])


def test_threefry_is_one_primitive_in_core_form():
    text = astjax.make_source(lambda k: random.bits(k, (8,)), random.PRNGKey(0))
    assert text.count("= lax.threefry2x32(") == 1, text


@pytest.mark.parametrize("seed", [0, 7, 2 ** 31 - 1])
def test_typed_keys_are_jax_bit_for_bit(seed):
    key, jkey = random.key(seed), jax.random.key(seed)
    assert key.shape == () and key.dtype == dtypes.KEY_DTYPE
    assert dtypes.issubdtype(key.dtype, dtypes.prng_key)
    assert not dtypes.issubdtype(key.dtype, np.floating)
    split, jsplit = random.split(key, 3), jax.random.split(jkey, 3)
    assert isinstance(split, KeyArray) and split.shape == (3,)
    np.testing.assert_array_equal(random.key_data(split), np.asarray(jax.random.key_data(jsplit)))
    np.testing.assert_array_equal(random.key_data(random.fold_in(key, 9)),
                                  np.asarray(jax.random.key_data(jax.random.fold_in(jkey, 9))))
    np.testing.assert_array_equal(random.uniform(split[1], (5,), np.float32),
                                  np.asarray(jax.random.uniform(jsplit[1], (5,), np.float32)))
    np.testing.assert_array_equal(random.bits(key, (4,), np.uint32),
                                  np.asarray(jax.random.bits(jkey, (4,), np.uint32)))
    np.testing.assert_array_equal(random.randint(key, (6,), 0, 50, np.int32),
                                  np.asarray(jax.random.randint(jkey, (6,), 0, 50, np.int32)))
    wrapped = random.wrap_key_data(random.key_data(split))
    np.testing.assert_array_equal(random.key_data(wrapped), random.key_data(split))
    assert [k.shape for k in split] == [(), (), ()] and len(split) == 3
    assert random.key_data(split.reshape(3, 1)).shape == (3, 1, 2)


def draw(key):
    key, sub = random.split(key)
    return key, random.normal(sub, (3,), np.float32)


def loop(key, n):
    total = np.float32(0.0)
    for _ in range(n):
        key, sub = random.split(key)
        total = total + random.uniform(sub, (), np.float32)
    return total, key


def scanned(key):
    def body(k, _):
        k, s = random.split(k)
        return k, random.uniform(s, (2,), np.float32)
    return lax.scan(body, key, None, length=4)


def per_key(keys):
    return astjax.vmap(lambda k: random.uniform(k, (2,), np.float32))(keys)


def jax_loop(key, n):
    total = np.float32(0.0)
    for _ in range(n):
        key, sub = jax.random.split(key)
        total = total + jax.random.uniform(sub, (), np.float32)
    return total, key


@pytest.mark.parametrize("backend", BACKENDS)
def test_typed_keys_under_jit_vmap_scan_and_loops(backend):
    key, jkey = random.key(3), jax.random.key(3)
    new_key, x = astjax.jit(draw, backend=backend)(key)
    assert isinstance(new_key, KeyArray)
    want_key, want_x = draw(key)
    np.testing.assert_array_equal(random.key_data(new_key), random.key_data(want_key))
    np.testing.assert_allclose(x, want_x, rtol=2e-6, atol=2e-6)
    total, last = astjax.jit(loop, backend=backend, static_argnums=1)(key, 3)
    want_total, want_last = jax_loop(jkey, 3)
    np.testing.assert_array_equal(total, np.asarray(want_total))
    np.testing.assert_array_equal(random.key_data(last), np.asarray(jax.random.key_data(want_last)))
    carry, ys = astjax.jit(scanned, backend=backend)(key)
    assert isinstance(carry, KeyArray) and ys.shape == (4, 2)
    keys = random.split(key, 5)
    got = astjax.jit(per_key, backend=backend)(keys)
    np.testing.assert_array_equal(got, np.stack([random.uniform(k, (2,), np.float32)
                                                 for k in keys]))


def test_grad_through_a_typed_key_sample_differentiates_the_scale():
    key = random.key(5)
    g = astjax.grad(lambda s, k: (random.normal(k, (4,), np.float64) * s).sum())(2.0, key)
    np.testing.assert_allclose(g, np.sum(random.normal(key, (4,), np.float64)), rtol=1e-12)


def test_a_batch_of_keys_is_refused_where_one_key_is_needed():
    with pytest.raises(TypeError, match="single key"):
        random.uniform(random.split(random.key(0), 2), (3,))


def test_threefry_on_numba_is_one_vectorised_loop():
    """The cipher's rounds join the loop making floats of the bits: uint32 vector code."""
    fn = astjax.jit(lambda k: random.uniform(k, (1 << 12,), np.float32), backend="numba")
    fn(random.PRNGKey(0))
    llvm = "".join(fn.last.call.kernel.inspect_llvm().values())
    assert re.search(r"<(4|8|16) x i32>", llvm), "the threefry loop did not vectorise"
