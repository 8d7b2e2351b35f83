"""The allocations generated kernels call (rt.empty, rt.full, rt.zeros), the gather's index
clip and rt.transposed, lowered straight to IR: the same results as NumPy (and as their own Python
versions, which a generated module runs unjitted), compiled without Numba's overloads."""
import numba
import numpy as np
import pytest

from astjax.backends.numba import alloc_runtime as alloc
from astjax.backends.numba import runtime as rt


@numba.njit
def _forms(n, m):
    return (rt.empty((n, m), np.float32).shape, rt.empty(n),
            rt.full((n, m), 2.5, np.float32), rt.full(n, np.int64(7)), rt.full((n,), True),
            rt.zeros((n, m), np.int32), rt.zeros(n), rt.full((), 1.5, np.float64))


@pytest.mark.parametrize("n, m", [(3, 4), (0, 5), (1, 1)])
def test_allocations_match_numpy(n, m):
    shape, default, full32, full_int, full_bool, zeros32, zeros64, scalar = _forms(n, m)
    expected = (np.full((n, m), 2.5, np.float32), np.full(n, 7), np.full((n,), True),
                np.zeros((n, m), np.int32), np.zeros(n), np.full((), 1.5))
    assert shape == (n, m) and default.dtype == np.float64 and default.shape == (n,)
    for got, want in zip((full32, full_int, full_bool, zeros32, zeros64, scalar), expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_negative_size_is_refused_as_numpy_does():
    with pytest.raises(ValueError):
        _forms(-1, 2)


@numba.njit
def _clip(i, size):
    return rt.clip_index(i, size)


def test_clip_index_matches_its_python_rule():
    for size in (0, 1, 5):
        for i in range(-8, 9):
            assert _clip(np.int32(i), np.int64(size)) == alloc.clip_index(i, size), (i, size)
            assert _clip(i, size) == alloc.clip_index(i, size)
        for u in (0, 3, 2**40, 2**64 - 5):  # unsigned: never counted from the end
            assert _clip(np.uint64(u), size) == min(u, max(size - 1, 0)), (u, size)


def test_the_python_versions_run_unjitted():
    assert rt.empty((2, 3), np.float32).dtype == np.float32
    np.testing.assert_array_equal(rt.full(3, 1.5), np.full(3, 1.5))
    np.testing.assert_array_equal(rt.zeros((2,), np.int64), np.zeros(2, np.int64))


def test_a_kernel_allocating_compiles_no_overload():
    """rt.empty/full/zeros compile no function of their own (np.empty's overload did, per
    rank and dtype, in every process)."""
    from numba.core import event

    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            compiled.append(getattr(ev.data.get("dispatcher"), "py_func", None))

        def on_end(self, ev):
            pass

    @numba.njit
    def kernel(n):
        return rt.empty((n, 2), np.float64)[0, 0] * 0 + rt.zeros(n, np.int16).sum() + \
            rt.full((n, n, n), np.float32(1), np.float32)[0, 0, 0]

    with event.install_listener("numba:compile", Listener()):
        assert kernel(3) == 1.0
    names = [getattr(f, "__qualname__", "") for f in compiled]
    assert not any("empty" in n or "full" in n or "zeros" in n for n in names), names


def test_only_code_is_rewritten_not_the_quoted_user_lines():
    from astjax.backends.numba import _direct_allocations
    text = ("    a = np.empty((n,), np.float32)  # user.py:3  b = np.empty(3)\n"
            "    c = np.full(n, 0.5) + np.zeros_like(a)[0] + np.fullness(2)\n"
            "    s = 'np.zeros('\n")
    assert _direct_allocations(text) == (
        "    a = rt.empty((n,), np.float32)  # user.py:3  b = np.empty(3)\n"
        "    c = rt.full(n, 0.5) + np.zeros_like(a)[0] + np.fullness(2)\n"
        "    s = 'np.zeros('\n")


def _misaligned(shape, dtype=np.float32) -> np.ndarray:
    """An array at an address 16 bytes past a cache line (as NumPy often places them)."""
    n = int(np.prod(shape))
    memory = np.zeros(n * np.dtype(dtype).itemsize + 128, np.uint8)
    start = (-memory.ctypes.data) % 64 + 16
    return memory[start:start + n * np.dtype(dtype).itemsize].view(dtype).reshape(shape)


@numba.njit
def _aligned_in_kernel(a):
    b = rt.aligned(a)
    return b.ctypes.data % 64, b.copy()


@pytest.mark.parametrize("shape, dtype", [((16, 32), np.float32), ((7,), np.int64),
                                          ((3, 5, 2), np.float64)])
def test_aligned_copies_a_misaligned_array_and_passes_an_aligned_one(shape, dtype):
    a = _misaligned(shape, dtype)
    a[...] = np.arange(a.size).reshape(shape)
    assert a.ctypes.data % 64 == 16
    offset, values = _aligned_in_kernel(a)
    assert offset == 0
    np.testing.assert_array_equal(values, a)
    copy = rt.aligned(a)  # (and unjitted, as a generated module runs without Numba)
    assert copy.ctypes.data % 64 == 0 and copy is not a
    assert rt.aligned(copy) is copy
    big = _misaligned((rt.ALIGNED_COPY_BYTES // 4 + 16,))
    assert rt.aligned(big) is big  # (streamed from memory: not copied)


def test_a_matrix_a_loop_reads_at_every_step_is_aligned_on_entry():
    """The kernel of a training loop aligns the matrix its steps read (and not the parameters
    it updates), and gives the same result for a misaligned matrix as NumPy's loop."""
    import astjax
    from astjax import lax

    def train(w, x, y):
        def step(i, w):
            return w - 0.1 * (x.T @ (x @ w - y)) / x.shape[0]
        return lax.fori_loop(0, 20, step, w)

    rng = np.random.default_rng(0)
    x = _misaligned((64, 8))
    x[...] = rng.standard_normal((64, 8))
    y = rng.standard_normal(64).astype(np.float32)
    w = np.zeros(8, np.float32)
    f = astjax.jit(train, backend="numba")
    got = f(w, x, y)
    want = w.astype(np.float64)
    for _ in range(20):
        want = want - 0.1 * (x.T @ (x @ want - y)) / 64
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    assert "= rt.aligned(x)" in f.source and "= rt.aligned(y)" in f.source
    assert "rt.aligned(w)" not in f.source  # (the carry: read once, then replaced)


@numba.njit
def _transposes(x):
    return (np.ascontiguousarray(rt.transposed(x, (2, 0, 1))), rt.transposed(x, (0, 2, 1)),
            rt.transposed(x[:, ::2], (1, 2, 0)).copy(), rt.transposed(x, (0, 1, 2))[1, 2, 3])


@pytest.mark.parametrize("writable", [True, False])
def test_transposed_views_match_numpy(writable):
    """rt.transposed is NumPy's transpose(axes): a view of the same memory, strided and
    read-only arrays too."""
    x = np.arange(2 * 5 * 4, dtype=np.float64).reshape(2, 5, 4)
    x.flags.writeable = writable
    moved, view, strided, element = _transposes(x)
    np.testing.assert_array_equal(moved, x.transpose(2, 0, 1))
    assert moved.flags.c_contiguous
    np.testing.assert_array_equal(view, x.transpose(0, 2, 1))
    assert np.shares_memory(view, x) and view.strides == x.transpose(0, 2, 1).strides
    np.testing.assert_array_equal(strided, x[:, ::2].transpose(1, 2, 0))
    assert element == x[1, 2, 3]
    np.testing.assert_array_equal(alloc.transposed(x, (1, 0, 2)), x.transpose(1, 0, 2))
