"""The Numba backend's matrix-vector products summed along the matrix's rows
(matvec_runtime: a block of rows folded by a tree of shuffles), at each vector width the
machine may have.  Oracle: NumPy in float64."""
import ctypes

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import cpu_target

from astjax.backends.numba import matvec_runtime as mv
from astjax.backends.numba import product_runtime as pr

rng = np.random.default_rng(11)


def _dot():
    """A fresh caller of pr.dot (its product: the registered one, at this machine's width)."""
    @numba.njit(cache=False)
    def dot(a, b, out, ta, tb):
        pr.dot(a, b, out, ta, tb, False)
    return dot


@global_compiler_lock
def _products_at(bits: int) -> dict:
    """product_runtime's products compiled with vectors of `bits` bits (named apart from
    the registered ones): dtype -> (library, address)."""
    saved = mv.vector_bits
    mv.vector_bits = lambda: bits
    try:
        context = cpu_target.target_context
        library = context.codegen().create_library(f"products_at_{bits}")
        library.add_ir_module(pr._module(context, suffix=f"_at_{bits}"))
        library.finalize()
    finally:
        mv.vector_bits = saved
    return {dtype: (library, library.get_pointer_to_function(pr.product_name(t) + f"_at_{bits}"))
            for dtype, t in ((np.float32, numba.float32), (np.float64, numba.float64))}


_PRODUCT = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_ssize_t), *[ctypes.c_ssize_t] * 4)


def _fields(x) -> list:
    """A 2-D operand's fields as the product reads them (OPERAND_FIELDS: a batch of one)."""
    return [x.ctypes.data, 0, *x.shape, *x.strides]


@pytest.fixture(scope="module", params=[128, 256, 512])
def dot_at_width(request):
    """A product compiled with vectors of 128, 256 or 512 bits (SSE, AVX2, AVX-512
    machines), called as pr.dot is."""
    if request.param > mv.vector_bits():
        pytest.skip(f"this machine's vectors are narrower than {request.param} bits")
    products = _products_at(request.param)

    def dot(a, b, out, ta, tb):
        fields = (ctypes.c_ssize_t * 18)(*_fields(a), *_fields(b), *_fields(out))
        _PRODUCT(products[out.dtype.type][1])(fields, 1, int(ta), int(tb), 0)
    return request.param, dot


def _case(layout, rows, cols, dtype, matrix=None, vector=None):
    """(a, b, out, ta, tb, want): a matrix times a vector as one of the four layouts whose
    sums run along the matrix's rows."""
    m = rng.standard_normal((rows, cols)).astype(dtype) if matrix is None else matrix
    v = rng.standard_normal(cols).astype(dtype) if vector is None else vector
    a, b, ta, tb = {"column": (m, v.reshape(cols, 1), False, False),
                    "column_of_row": (m, v.reshape(1, cols), False, True),
                    "row": (v.reshape(1, cols), m, False, True),
                    "row_of_column": (v.reshape(cols, 1), m, True, True)}[layout]
    out = np.full((rows, 1) if layout.startswith("column") else (1, rows), np.nan, dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        want = m.astype(np.float64) @ v.astype(np.float64)
    return a, b, out, ta, tb, want


LAYOUTS = ["column", "column_of_row", "row", "row_of_column"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LAYOUTS), st.integers(1, 4), st.integers(0, 15), st.integers(1, 3),
       st.integers(0, 15), st.sampled_from([np.float32, np.float64]))
def test_matvec_matches_numpy_at_every_width(dot_at_width, layout, row_blocks, extra_rows,
                                             col_blocks, extra_cols, dtype):
    """Row and column counts around whole blocks of the width's lanes: the last block
    overlaps the one before, the last columns are read as a row's last whole vector."""
    bits, dot = dot_at_width
    lanes = bits // (8 * np.dtype(dtype).itemsize)
    rows, cols = row_blocks * lanes + extra_rows % lanes, col_blocks * lanes + extra_cols % lanes
    a, b, out, ta, tb, want = _case(layout, rows, cols, dtype)
    dot(a, b, out, ta, tb)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(out.ravel(), want, atol=tol * scale * np.sqrt(cols), rtol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_infinity_in_the_vector_is_counted_once(dot_at_width, layout):
    """The last columns' vector overlaps the ones before it; their lanes' products are
    zeroed, not the matrix's elements (0 * inf would make every row NaN)."""
    bits, dot = dot_at_width
    lanes = bits // 32
    rows, cols = 2 * lanes + 3, lanes + 3
    matrix = np.ones((rows, cols), np.float32)
    vector = np.zeros(cols, np.float32)
    vector[3] = np.inf  # (a column of the first whole vector, inside the overlap)
    matrix[1, 3] = -1.0
    a, b, out, ta, tb, want = _case(layout, rows, cols, np.float32, matrix, vector)
    dot(a, b, out, ta, tb)
    np.testing.assert_array_equal(out.ravel(), want)


def test_a_short_product_keeps_to_gemm():
    """Fewer rows or columns than a block's lanes: gemm (a block would read rows or columns
    that are not there)."""
    lanes = mv.lanes(numba.float32)
    dot = _dot()
    for rows, cols in ((lanes - 1, 64), (64, lanes - 1), (1, 1000)):
        a, b, out, ta, tb, want = _case("column", rows, cols, np.float32)
        dot(a, b, out, ta, tb)
        np.testing.assert_allclose(out.ravel(), want, atol=1e-4 * np.sqrt(cols), rtol=0)


@numba.njit(cache=False)
def _batched_dot(a, b, out, ta, tb):
    pr.batched_dot(a, b, out, ta, tb)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(LAYOUTS), st.integers(1, 5), st.integers(16, 70), st.integers(16, 70),
       st.sampled_from([np.float32, np.float64]))
def test_batched_matvec_matches_numpy(layout, batch, rows, cols, dtype):
    """A batch of matrices times a batch of vectors (vmap of `m @ v`, or one query against
    each head's keys): one call per batch, at each batch's offset."""
    cases = [_case(layout, rows, cols, dtype) for _ in range(batch)]
    a, b, out = (np.stack([c[k] for c in cases]) for k in range(3))
    _batched_dot(a, b, out, cases[0][3], cases[0][4])
    want = np.stack([c[5] for c in cases])
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.reshape(batch, rows), want,
                               atol=tol * max(1.0, float(np.abs(want).max())) * np.sqrt(cols),
                               rtol=0)


@pytest.mark.parametrize("name, features, bits", [
    ("generic", None, 128),                   # a named target: code shared between machines
    (None, "+sse4.2,+avx,+avx2,-avx512f", 256),
    (None, "+avx2,+avx512f", 512),
    (None, "+sse4.2", 128)])
def test_the_vector_width_follows_numbas_target(monkeypatch, name, features, bits):
    """Vectors no wider than the target Numba compiles for: LLVM would split wider ones,
    spilling a block's accumulators."""
    monkeypatch.setattr(numba.core.config, "CPU_NAME", name)
    monkeypatch.setattr(numba.core.config, "CPU_FEATURES", features)
    mv.vector_bits.cache_clear()
    try:
        assert mv.vector_bits() == bits
    finally:
        mv.vector_bits.cache_clear()
