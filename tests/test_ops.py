"""jax.ops' segment reductions against JAX's own, on every backend: ids out of range (negative
ones included) dropped or clamped, empty segments holding the identity, gradients."""
import numpy as np
import pytest

import astjax
from astjax.errors import ShapeError

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(0)
DATA = RNG.standard_normal((7, 3))
INTS = RNG.integers(-5, 5, 7)
IDS = np.array([0, 2, 2, 5, 0, 9, -1])  # (segments 1, 3 and 4 empty; 9 and -1 out of range)
OPS = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


@pytest.mark.parametrize("backend", ["numpy", "xla", "numba"])
@pytest.mark.parametrize("mode", [None, "clip"])
@pytest.mark.parametrize("name", OPS)
def test_segment_reductions_match_jax(name, mode, backend):
    def segments(data, ids):
        return getattr(astjax.ops, name)(data, ids, 6, mode=mode)
    compiled = astjax.jit(segments, backend=backend)
    with jax.enable_x64(True):
        for data in (DATA, INTS):
            want = np.asarray(getattr(jax.ops, name)(data, IDS, 6, mode=mode))
            got = compiled(data, IDS)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_segment_count_from_known_ids_and_a_clear_error_for_computed_ones():
    got = astjax.ops.segment_sum(DATA, np.array([0, 1, 1, 0, 2, 2, 1]))
    assert got.shape == (3, 3)
    np.testing.assert_allclose(got[1], DATA[1] + DATA[2] + DATA[6])

    def computed(data, ids):
        return astjax.ops.segment_sum(data, ids)
    with pytest.raises(ShapeError, match="need num_segments"):
        astjax.jit(computed)(DATA, IDS)


@pytest.mark.parametrize("name", ["segment_sum", "segment_max"])
def test_segment_reductions_differentiate_as_jax(name):
    weights = np.arange(18.0).reshape(6, 3)

    def loss(data):
        return astjax.numpy.sum(getattr(astjax.ops, name)(data, IDS, 6) ** 2 * weights)

    def jax_loss(data):
        return jax.numpy.sum(getattr(jax.ops, name)(data, IDS, 6) ** 2 * weights)
    with jax.enable_x64(True):
        want = np.asarray(jax.grad(jax_loss)(DATA))
    np.testing.assert_allclose(astjax.jit(astjax.grad(loss))(DATA), want, rtol=1e-12)
