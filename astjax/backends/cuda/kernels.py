"""The Numba runtime's helpers over rows, columns and matrices, as kernels the host launches.

On the CPU, generated code calls `rt.cumulative`, `rt.argmax_rows`, `rt.scatter`, `rt.dot`,
... on canonical views ((P, N, Q) blocks, (K, R) rows, (batch, m, n) products).  Here each has the same signature and
meaning, and runs one thread per independent lane: per (p, q) column for a cumulative
operation and a scatter (the indices applied in order, as on the CPU, so repeated indices
give the same result), per row for argmax/argmin, per element of the result for a matrix
product (a loop over the contracted axis: cuBLAS would be faster on a real device).
"""
import math

from numba import cuda

from astjax.backends.cuda.device import maximum, minimum  # NaN wins, as in NumPy
from astjax.backends.numba.runtime import ADD, MAX, MIN, MUL, SET  # noqa: F401 (op codes)

THREADS = 128  # per block


@cuda.jit(device=True)
def _combine(op, a, b):
    if op == ADD:
        return a + b
    if op == MUL:
        return a * b
    if op == MIN:
        return minimum(a, b)
    if op == MAX:
        return maximum(a, b)
    return b


@cuda.jit
def _cumulative(op, x, out, reverse):
    t = cuda.grid(1)
    n, columns = x.shape[1], x.shape[2]
    if t < x.shape[0] * columns:
        p, q = t // columns, t % columns
        for step in range(n):
            j = n - 1 - step if reverse else step
            prev = j + 1 if reverse else j - 1
            out[p, j, q] = x[p, j, q] if step == 0 else _combine(op, out[p, prev, q], x[p, j, q])


@cuda.jit
def _scatter(op, out, index, updates):
    t = cuda.grid(1)
    n, columns = out.shape[1], out.shape[2]
    if t < out.shape[0] * columns:
        p, q = t // columns, t % columns
        for j in range(index.shape[0]):
            i = index[j]
            if i < 0:
                i += n
            if 0 <= i < n:
                out[p, i, q] = _combine(op, out[p, i, q], updates[j, p, q])


@cuda.jit
def _arg_extremum_rows(x, out, largest):
    """First index of the row's maximum (minimum), or of its first NaN: np.argmax's rule."""
    k = cuda.grid(1)
    if k < x.shape[0]:
        best, m = 0, x[k, 0]
        for r in range(1, x.shape[1]):
            v = x[k, r]
            if m == m and ((v > m if largest else v < m) or v != v):
                best, m = r, v
        out[k] = best


def _launch(kernel, lanes, *args):
    if lanes > 0:
        kernel[math.ceil(lanes / THREADS), THREADS](*args)


def cumulative(op, x, out, reverse):
    """out[p, j, q] = x[p, 0, q] op ... op x[p, j, q] (from the end when reverse)."""
    _launch(_cumulative, x.shape[0] * x.shape[2], op, x, out, reverse)


def scatter(op, out, index, updates):
    """out[p, index[j], q] = out[...] op updates[j, p, q]; out-of-range indices are dropped."""
    _launch(_scatter, out.shape[0] * out.shape[2], op, out, index, updates)


def argmax_rows(x, out):
    _launch(_arg_extremum_rows, x.shape[0], x, out, True)


def argmin_rows(x, out):
    _launch(_arg_extremum_rows, x.shape[0], x, out, False)


@cuda.jit
def _products(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]), one thread per element of out (op: transposed when its
    flag is set, as the CPU runtime's gemm calls read them)."""
    t = cuda.grid(1)
    m, n = out.shape[1], out.shape[2]
    if t < out.shape[0] * m * n:
        i, r, c = t // (m * n), (t // n) % m, t % n
        k = a.shape[1] if ta else a.shape[2]
        total = 0.0
        for j in range(k):
            total += (a[i, j, r] if ta else a[i, r, j]) * (b[i, c, j] if tb else b[i, j, c])
        out[i, r, c] = total


def batched_dot(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for (batch, rows, columns) arrays."""
    _launch(_products, out.shape[0] * out.shape[1] * out.shape[2], a, b, out, ta, tb)


def dot(a, b, out, ta, tb, own_threads=False):
    """out = op(a) @ op(b) for 2-D arrays (`own_threads`, the CPU's choice of BLAS threads,
    means nothing here)."""
    batched_dot(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape),
                out.reshape((1,) + out.shape), ta, tb)


@cuda.jit(device=True)
def _before(a, b):
    """a sorts before b: NumPy's order, NaN last."""
    return a < b or (b != b and a == a)


@cuda.jit
def _sort_rows(x, out):
    """Each row sorted by insertion (a thread per row; NaN last, as np.sort)."""
    k = cuda.grid(1)
    if k < x.shape[0]:
        for r in range(x.shape[1]):
            v, s = x[k, r], r
            while s > 0 and _before(v, out[k, s - 1]):
                out[k, s] = out[k, s - 1]
                s -= 1
            out[k, s] = v


@cuda.jit
def _argsort_rows(x, out):
    """The indices that sort each row, stable (ties keep their order, as a mergesort)."""
    k = cuda.grid(1)
    if k < x.shape[0]:
        for r in range(x.shape[1]):
            s = r
            while s > 0 and _before(x[k, r], x[k, out[k, s - 1]]):
                out[k, s] = out[k, s - 1]
                s -= 1
            out[k, s] = r


def sort_rows(x, out):
    _launch(_sort_rows, x.shape[0], x, out)


def argsort_rows(x, out):
    _launch(_argsort_rows, x.shape[0], x, out)
