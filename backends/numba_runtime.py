"""Jitted helpers that generated Numba modules call as `rt.<name>` (loops too long to inline).

Array helpers see canonical views so that one helper serves every rank: reductions see
(kept, reduced) rows, axis operations see (before, axis, after) blocks.  The caller allocates
each output with the dtype its aval says; helpers only fill it, so they never choose a dtype.
NaN propagates through max/min as in NumPy.
"""

import numba
import numpy as np

njit = numba.njit(cache=True, error_model="numpy")


# ---------------------------------------------------------------- scalars
@njit
def max_nan(a, b):
    """NumPy's maximum on scalars: NaN wins."""
    return a if (a > b or a != a) else b


@njit
def min_nan(a, b):
    return a if (a < b or a != a) else b


def debug_print(fmt, *values):
    """Runs in object mode: Python's formatting of NumPy values, like the NumPy backend."""
    print(fmt.format(*[np.asarray(v) for v in values]))


# ---------------------------------------------------------------- reductions on (K, R) rows
@njit
def sum_rows(x, acc):
    for k in range(x.shape[0]):
        s = acc[k]
        for r in range(x.shape[1]):
            s += x[k, r]
        acc[k] = s


@njit
def prod_rows(x, acc):
    for k in range(x.shape[0]):
        s = acc[k]
        for r in range(x.shape[1]):
            s *= x[k, r]
        acc[k] = s


@njit
def max_rows(x, acc):
    for k in range(x.shape[0]):
        m = x[k, 0]
        for r in range(1, x.shape[1]):
            m = max_nan(x[k, r], m)
        acc[k] = m


@njit
def min_rows(x, acc):
    for k in range(x.shape[0]):
        m = x[k, 0]
        for r in range(1, x.shape[1]):
            m = min_nan(x[k, r], m)
        acc[k] = m


@njit
def all_rows(x, acc):
    for k in range(x.shape[0]):
        for r in range(x.shape[1]):
            if not x[k, r]:
                acc[k] = False
                break


@njit
def any_rows(x, acc):
    for k in range(x.shape[0]):
        for r in range(x.shape[1]):
            if x[k, r]:
                acc[k] = True
                break


@njit
def argmax_rows(x, out):
    """First index of the maximum (of the first NaN, if any), as np.argmax."""
    for k in range(x.shape[0]):
        best, m = 0, x[k, 0]
        for r in range(1, x.shape[1]):
            v = x[k, r]
            if m == m and (v > m or v != v):
                best, m = r, v
        out[k] = best


@njit
def argmin_rows(x, out):
    for k in range(x.shape[0]):
        best, m = 0, x[k, 0]
        for r in range(1, x.shape[1]):
            v = x[k, r]
            if m == m and (v < m or v != v):
                best, m = r, v
        out[k] = best


# ---------------------------------------------------------------- cumulative on (P, N, Q)
# Operation codes shared by `cumulative` and `scatter` (one helper each, not one per operation:
# Numba's cache would confuse functions made by one factory, which share a qualified name).
SET, ADD, MUL, MIN, MAX = 0, 1, 2, 3, 4


@njit
def combine(op, a, b):
    if op == ADD:
        return a + b
    if op == MUL:
        return a * b
    if op == MIN:
        return min_nan(a, b)
    if op == MAX:
        return max_nan(a, b)
    return b


@njit
def cumulative(op, x, out, reverse):
    """out[p, j, q] = x[p, 0, q] op ... op x[p, j, q] (from the end when reverse)."""
    n = x.shape[1]
    for p in range(x.shape[0]):
        for q in range(x.shape[2]):
            for step in range(n):
                j = n - 1 - step if reverse else step
                prev = j + 1 if reverse else j - 1
                out[p, j, q] = x[p, j, q] if step == 0 else combine(op, out[p, prev, q], x[p, j, q])


# ---------------------------------------------------------------- sorting rows
@njit
def sort_rows(x, out):
    for k in range(x.shape[0]):
        out[k] = np.sort(x[k])


@njit
def argsort_rows(x, out):
    for k in range(x.shape[0]):
        out[k] = np.argsort(x[k], kind="mergesort")  # stable, as the NumPy backend


# ---------------------------------------------------------------- indexing on (P, N, Q)
@njit
def clip_index(i, size):
    """JAX's gather rule: negative counts from the end, then clamped into range."""
    if i < 0:
        i += size
    return min(max(i, 0), max(size - 1, 0))


@njit
def take(x, index, out):
    """out[p, j, q] = x[p, index[j], q]."""
    n = x.shape[1]
    for j in range(index.shape[0]):
        src = clip_index(index[j], n)
        for p in range(x.shape[0]):
            for q in range(x.shape[2]):
                out[p, j, q] = x[p, src, q]


@njit
def take_along(x, index, out):
    """out[p, j, q] = x[p, index[p, j, q], q]."""
    n = x.shape[1]
    for p in range(index.shape[0]):
        for j in range(index.shape[1]):
            for q in range(index.shape[2]):
                out[p, j, q] = x[p, clip_index(index[p, j, q], n), q]


@njit
def take_along_transpose(ct, index, out):
    """out[p, index[p, j, q], q] += ct[p, j, q] (out zero-filled by the caller)."""
    n = out.shape[1]
    for p in range(index.shape[0]):
        for j in range(index.shape[1]):
            for q in range(index.shape[2]):
                out[p, clip_index(index[p, j, q], n), q] += ct[p, j, q]


@njit
def scatter(op, out, index, updates):
    """out[p, index[j], q] = out[...] op updates[j, p, q]; out-of-range indices are dropped."""
    n = out.shape[1]
    for j in range(index.shape[0]):
        i = index[j]
        if i < 0:
            i += n
        if i < 0 or i >= n:
            continue
        for p in range(out.shape[0]):
            for q in range(out.shape[2]):
                out[p, i, q] = combine(op, out[p, i, q], updates[j, p, q])


# ---------------------------------------------------------------- contraction
@njit
def batched_dot(a, b, out):
    """out[i] = a[i] @ b[i] for float operands (BLAS through np.dot)."""
    for i in range(a.shape[0]):
        out[i] = np.dot(a[i], b[i])


@njit
def batched_matmul_loop(a, b, out):
    """The same for dtypes BLAS lacks (integers, bool): out zero-filled by the caller."""
    for i in range(a.shape[0]):
        for m in range(a.shape[1]):
            for k in range(a.shape[2]):
                av = a[i, m, k]
                for n in range(b.shape[2]):
                    out[i, m, n] += av * b[i, k, n]
