"""The Numba backend's matrix products (blas_runtime): gemm called directly on operands read
transposed by flag, large products cut into one block per thread.  Oracle: NumPy in float64."""
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from astjax.backends.numba import blas_runtime as br
from astjax.backends.numba import product_runtime as pr

rng = np.random.default_rng(3)


def _operands(m, k, n, ta, tb, dtype):
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    return a, b, want


@numba.njit
def dot(a, b, out, ta, tb, own_threads=False):
    """pr.dot is an intrinsic (compiled code calls it): called from Python through this."""
    pr.dot(a, b, out, ta, tb, own_threads)


def _close(got, want, dtype):
    tol = 2e-5 if dtype == np.float32 else 1e-12
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    assert not np.isnan(got).any()  # every block of the output was written
    np.testing.assert_allclose(got, want, atol=tol * scale, rtol=0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40), st.booleans(), st.booleans(),
       st.sampled_from([np.float32, np.float64]))
def test_dot_matches_numpy_for_every_layout(m, k, n, ta, tb, dtype):
    a, b, want = _operands(m, k, n, ta, tb, dtype)
    out = np.full((m, n), np.nan, dtype)
    dot(a, b, out, ta, tb)
    _close(out, want, dtype)


@pytest.mark.parametrize("m, k, n", [(16, 128, 128), (16, 128, 129), (64, 64, 64), (64, 64, 65)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_either_side_of_the_small_size_match_numpy(m, k, n, dtype):
    """At most SMALL_MACS multiply-adds: NumPy's OpenBLAS where it bundles one (64-bit
    integer arguments), past it SciPy's (32-bit): both conventions give NumPy's product."""
    a, b, want = _operands(m, k, n, True, False, dtype)
    out = np.full((m, n), np.nan, dtype)
    dot(a, b, out, True, False)
    _close(out, want, dtype)


@numba.njit
def batched_dot(a, b, out, ta, tb):
    pr.batched_dot(a, b, out, ta, tb)


def test_every_gemm_entry_is_filled():
    entries = list(br._TABLE)
    assert all(entries[:4]) and set(entries[4:8]) <= {32, 64}
    assert [bool(e) for e in entries[8:10]] == [w == 64 for w in entries[6:8]]  # NumPy's own


@pytest.mark.parametrize("threads", [1, 2])
def test_the_thread_count_where_a_product_runs_gives_numpys_product(threads):
    """The block count is Numba's thread count when the product runs (machine code cached on
    a 2-core machine splits as a 16-core one's count says; `numba.set_num_threads` holds):
    sizes not multiples of it."""
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        for m, k, n, ta in ((701, 160, 311, False), (161, 170, 1237, True)):
            a, b, want = _operands(m, k, n, ta, False, np.float32)
            out = np.full((m, n), np.nan, np.float32)
            dot(a, b, out, ta, False)
            _close(out, want, np.float32)
    finally:
        numba.set_num_threads(before)


# products past SPLIT_MACS: cut by rows (m >= n) or by columns, sizes not multiples of the
# thread count, each way of reading the operands
@pytest.mark.parametrize("m, k, n", [(701, 160, 311), (161, 170, 1237), (1000, 64, 530),
                                     (64, 128, 129)])
@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("own_threads", [False, True])
def test_large_products_split_into_blocks_match_numpy(m, k, n, ta, tb, own_threads):
    """Cut into blocks over Numba's pool, or (own_threads) one call of NumPy's gemm."""
    assert m * n * k >= br.SPLIT_MACS
    a, b, want = _operands(m, k, n, ta, tb, np.float32)
    out = np.full((m, n), np.nan, np.float32)
    dot(a, b, out, ta, tb, own_threads)
    _close(out, want, np.float32)


def test_a_kernel_calls_the_compiled_product_by_name():
    """A product in a kernel is a call of the compiled product (product_runtime), which holds the
    gemm calls, the matrix-vector path and the pool's entry: none is compiled into the
    kernel."""
    from numba.core.registry import cpu_target

    @numba.njit
    def dot_here(a, b, out):
        pr.dot(a, b, out, False, False, False)

    a, b, want = _operands(701, 160, 311, False, False, np.float32)
    out = np.full((701, 311), np.nan, np.float32)
    dot_here(a, b, out)
    _close(out, want, np.float32)
    kernel = dot_here.inspect_llvm(dot_here.signatures[0])
    assert "@astjax_product_float32(" in kernel
    assert not any(name in kernel for name in ("numba_parallel_for", "astjax_matvec",
                                               "astjax_gemm"))
    products = str(pr._module(cpu_target.target_context))
    assert ("numba_parallel_for" in products) == br.POOL
    assert all(f"astjax_matvec_{t}" in products for t in ("float32", "float64"))


PRODUCTS_IN_A_PROCESS = """
import numba, numpy as np
from astjax.backends.numba import blas_runtime as br, product_runtime as pr

@numba.njit
def dot(a, b, out):
    pr.dot(a, b, out, False, False, False)

a = np.linspace(-1, 1, 701 * 160, dtype=np.float32).reshape(701, 160)
b = np.linspace(1, -1, 160 * 311, dtype=np.float32).reshape(160, 311)
out = np.full((701, 311), np.nan, np.float32)
dot(a, b, out)
print(pr.SOURCE, br.POOL, np.abs(out - a.astype(np.float64) @ b.astype(np.float64)).max())
"""


def test_the_compiled_products_are_kept_in_the_cache_folder(tmp_path):
    """The first process compiles the products and stores them; the next reads them back;
    a garbled file is compiled again and replaced; a process where no thread pool starts
    (an unknown threading layer) gets code of its own that runs the blocks in turn. Each
    gives NumPy's product (a large one: split over the pool where there is one)."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    program = tmp_path / "products.py"
    program.write_text(PRODUCTS_IN_A_PROCESS)

    def run(**more):
        done = subprocess.run([sys.executable, str(program)], env=dict(env, **more),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
        source, pool, error = done.stdout.split()
        assert float(error) < 1e-2  # (sums of 160 products of magnitude <= 1, in float32)
        return source, pool

    assert run() == ("compiled", "True")
    assert run() == ("cache", "True")
    (stored,) = (tmp_path / "numba").glob("astjax_products_*.bin")
    stored.write_bytes(b"garbled")
    assert run() == ("compiled", "True")
    assert run() == ("cache", "True")
    assert run(NUMBA_THREADING_LAYER="unknown") == ("compiled", "False")
    assert len(list((tmp_path / "numba").glob("astjax_products_*.bin"))) == 2


@pytest.mark.parametrize("batch, m, k, n", [(1, 300, 160, 120), (3, 20, 30, 40), (5, 300, 90, 200),
                                            (3, 64, 128, 65), (2, 7, 3, 5)])
def test_batched_products_match_numpy(batch, m, k, n):
    """Fewer batches than threads (each product cut in blocks), as many or more (a block
    per batch), and products too small to split."""
    a = rng.standard_normal((batch, k, m))  # read transposed
    b = rng.standard_normal((batch, k, n))
    out = np.full((batch, m, n), np.nan)
    batched_dot(a, b, out, True, False)
    _close(out, np.einsum("bkm,bkn->bmn", a, b), np.float64)


@pytest.mark.parametrize("own_threads", [False, True])
def test_an_empty_sum_is_zero(own_threads):
    out = np.full((3, 4), np.nan, np.float32)
    dot(np.ones((3, 0), np.float32), np.ones((0, 4), np.float32), out, False, False,
        own_threads)
    assert (out == 0).all()


def test_a_large_product_runs_on_blas_threads_only_in_a_kernel_without_parallel_loops():
    """The generated module's flag: a kernel of products and small loops hands its large
    products to NumPy's OpenBLAS; one whose loops run in parallel keeps Numba's pool. Both
    give NumPy's values."""
    import astjax
    import astjax.numpy as jnp

    def layer(x, w):
        return jnp.tanh(x @ w)

    def layer_then_wide(x, w, z):
        return jnp.tanh(x @ w), jnp.sin(z) * 2.0  # (z large: a parallel loop)

    x = rng.standard_normal((200, 300)).astype(np.float32)
    w = rng.standard_normal((300, 100)).astype(np.float32)
    z = rng.standard_normal(1 << 20).astype(np.float32)
    plain = astjax.jit(layer, backend="numba")
    np.testing.assert_allclose(plain(x, w), np.tanh(x.astype(np.float64) @ w), atol=1e-4)
    assert "blas_threads = np.bool_(True)" in plain.source
    wide = astjax.jit(layer_then_wide, backend="numba")
    got = wide(x, w, z)
    np.testing.assert_allclose(got[0], np.tanh(x.astype(np.float64) @ w), atol=1e-4)
    np.testing.assert_allclose(got[1], np.sin(z.astype(np.float64)) * 2.0, atol=1e-5)
    assert "rt.parallel(" in wide.source and "blas_threads = np.bool_(False)" in wide.source
    out = np.full((2, 3, 4), np.nan, np.float32)
    batched_dot(np.ones((2, 3, 0), np.float32), np.ones((2, 0, 4), np.float32), out,
                False, False)
    assert (out == 0).all()


PRODUCT_IN_A_NEW_PROCESS = """
import numpy as np, astjax, astjax.numpy as jnp
from astjax.backends.numba import product_runtime as pr
x = np.linspace(-1, 1, 3 * 64 * 64, dtype=np.float32).reshape(3, 64, 64)
def plain(x):
    return jnp.tanh(x) * 2.0
def layer(x, w):
    return jnp.tanh(x @ w)
np.testing.assert_allclose(astjax.jit(plain, backend="numba")(x), np.tanh(x) * 2.0, rtol=1e-6)
assert pr.SOURCE is None  # (no product yet: the products' library is not read)
f = astjax.jit(layer, backend="numba")
got = np.asarray(f(x, x), np.float64)
want = np.tanh(x.astype(np.float64) @ x.astype(np.float64))
assert np.abs(got - want).max() < 1e-4, np.abs(got - want).max()
assert pr.SOURCE in ("cache", "compiled")
print("ok")
"""


def test_a_cached_kernel_with_a_product_runs_in_a_new_process(tmp_path):
    """A kernel that is not parallel itself calls Numba's thread pool (through a batched
    product). The first process compiles the kernel, the second loads it from the cache: a
    cached kernel does not record that the pool must be started before it runs (once, a new
    process called the unstarted pool's entry at address 0: a segfault), so the runtime
    starts it when it is imported. The products' library is registered only once a kernel
    with a product is compiled or loaded (its reload hook)."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path / "generated"),
               NUMBA_CACHE_DIR=str(tmp_path / "machine_code"))
    program = tmp_path / "product.py"  # (astjax reads the function's source file)
    program.write_text(PRODUCT_IN_A_NEW_PROCESS)
    for args in ([str(program)], [str(program)]):
        done = subprocess.run([sys.executable, *args], env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
