"""scipy.linalg's special matrices. Those built from arrays (toeplitz, hankel, circulant, ...)
gather their entries with static index tables, batched over leading axes as JAX's; those of a
static order n (hilbert, pascal, helmert, ...) are constants computed exactly in Python."""
import math

import numpy as np

import astjax.numpy as jnp

from .. import config


def _vector(x):
    x = jnp.asarray(x)
    return x[None] if x.ndim == 0 else x


def _gather_last(values, index):
    """values[..., index] for a static integer table index (any shape)."""
    return jnp.take(values, jnp.asarray(index), axis=-1)


def toeplitz(c, r=None):
    """The matrix with first column c and first row r (r[0] ignored; r = conj(c) if None),
    batched over leading axes."""
    c = _vector(c)
    r = jnp.conj(c) if r is None else _vector(r)
    c, r = jnp.asarray(c), jnp.asarray(r)
    dtype = jnp.result_type(c, r)
    lead = jnp.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    m, n = int(c.shape[-1]), int(r.shape[-1])
    values = jnp.concatenate([jnp.broadcast_to(c[..., ::-1], lead + (m,)).astype(dtype),
                              jnp.broadcast_to(r[..., 1:], lead + (n - 1,)).astype(dtype)],
                             axis=-1)
    return _gather_last(values, m - 1 + np.arange(n)[None, :] - np.arange(m)[:, None])


def hankel(c, r=None):
    """The matrix with first column c and last row r (r[0] ignored; zeros if None)."""
    c = _vector(c)
    r = jnp.zeros_like(c) if r is None else _vector(r)
    dtype = jnp.result_type(c, r)
    lead = jnp.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    m, n = int(c.shape[-1]), int(r.shape[-1])
    values = jnp.concatenate([jnp.broadcast_to(c, lead + (m,)).astype(dtype),
                              jnp.broadcast_to(r[..., 1:], lead + (n - 1,)).astype(dtype)],
                             axis=-1)
    return _gather_last(values, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """The matrix whose columns are the cyclic shifts of c."""
    c = _vector(c)
    n = int(c.shape[-1])
    return _gather_last(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def leslie(f, s):
    """The Leslie matrix: fecundities f in the first row, survivals s below the diagonal."""
    f, s = _vector(f), _vector(s)
    n = int(f.shape[-1])
    if s.shape[-1] != n - 1:
        raise ValueError("leslie: len(s) must be len(f) - 1")
    dtype = jnp.result_type(f, s, 1.0 if f.dtype.kind in "biu" else f.dtype)
    lead = jnp.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    out = jnp.zeros(lead + (n, n), dtype)
    out = out.at[..., 0, :].set(f.astype(dtype))
    return out.at[..., np.arange(1, n), np.arange(n - 1)].set(s.astype(dtype))


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first)."""
    a = _vector(a)
    n = int(a.shape[-1])
    if n < 2:
        raise ValueError("companion: the polynomial needs at least two coefficients")
    dtype = jnp.result_type(a, 1.0)
    first = (-a[..., 1:] / a[..., :1]).astype(dtype)
    out = jnp.zeros(a.shape[:-1] + (n - 1, n - 1), dtype).at[..., 0, :].set(first)
    return out.at[..., np.arange(1, n - 1), np.arange(n - 2)].set(1)


def fiedler(a):
    """|a_i - a_j|."""
    a = _vector(a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix (the same eigenvalues as companion(a))."""
    a = _vector(a)
    size = int(a.shape[-1])
    dtype = jnp.result_type(a, 1.0)
    if size <= 2:
        if size == 2:
            return (-(a[..., 1:] / a[..., :1]))[..., None].astype(dtype)
        return jnp.zeros(a.shape[:-1] + (0,), dtype)
    a = (a / a[..., :1]).astype(dtype)
    n = size - 1
    out = jnp.zeros(a.shape[:-1] + (n, n), dtype)
    out = out.at[..., np.arange(3, n, 2), np.arange(1, n - 2, 2)].set(1)
    out = out.at[..., np.arange(2, n, 2), np.arange(1, n - 1, 2)].set(-a[..., 3::2])
    out = out.at[..., np.arange(0, n - 2, 2), np.arange(2, n, 2)].set(1)
    out = out.at[..., np.arange(0, n - 1, 2), np.arange(1, n, 2)].set(-a[..., 2::2])
    out = out.at[..., 0, 0].set(-a[..., 1])
    return out.at[..., 1, 0].set(1)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix A with A @ v == convolve(a, v, mode) for every v of length n."""
    n = int(n)
    if n <= 0:
        raise ValueError("convolution_matrix: n must be a positive integer")
    if mode not in ("full", "valid", "same"):
        raise ValueError("convolution_matrix: mode must be 'full', 'valid' or 'same'")
    a = _vector(a)
    m = int(a.shape[-1])
    if m == 0:
        raise ValueError("convolution_matrix: len(a) must be at least 1")
    rows = np.arange(m + n - 1)
    if mode != "full":
        trim = min(n, m) - 1
        start = trim // 2 if mode == "same" else trim
        stop = m + n - 1 - (trim - trim // 2 if mode == "same" else trim)
        rows = rows[start:stop]
    shift = rows[:, None] - np.arange(n)[None, :]  # A[i, j] = a[i - j] where 0 <= i - j < m
    inside = (shift >= 0) & (shift < m)
    padded = jnp.concatenate([a, jnp.zeros(a.shape[:-1] + (1,), a.dtype)], axis=-1)
    return _gather_last(padded, np.where(inside, shift, m))


# ---------------------------------------------------------------- constants of order n
def _float(table):
    return jnp.asarray(np.asarray(table, np.float64).astype(config.default_dtype("float")))


def hilbert(n: int):
    i = np.arange(int(n))
    return _float(1.0 / (i[:, None] + i[None, :] + 1))


def invhilbert(n: int, exact: bool = False):
    """The inverse of hilbert(n), from its closed form in binomial coefficients."""
    n = int(n)
    table = [[(-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1)
              * math.comb(n + j, n - i - 1) * math.comb(i + j, i) ** 2
              for j in range(n)] for i in range(n)]
    if exact:
        return jnp.asarray(np.array(table, np.int64))
    return _float([[float(v) for v in row] for row in table])


def _pascal_table(n, kind):
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError("pascal: kind must be 'symmetric', 'lower' or 'upper'")
    if kind == "symmetric":
        return [[math.comb(i + j, i) for j in range(n)] for i in range(n)]
    lower = [[math.comb(i, j) for j in range(n)] for i in range(n)]
    return lower if kind == "lower" else [list(row) for row in zip(*lower)]


def pascal(n: int, kind: str = "symmetric", exact: bool = True):
    """The Pascal matrix of binomial coefficients (in the default float type)."""
    return _float(_pascal_table(int(n), kind or "symmetric"))


def invpascal(n: int, kind: str = "symmetric", exact: bool = True):
    """The inverse of pascal(n, kind), exactly."""
    n, kind = int(n), kind or "symmetric"
    signed = [[(-1) ** (i + j) * math.comb(i, j) for j in range(n)] for i in range(n)]
    if kind == "lower":
        return _float(signed)
    if kind == "upper":
        return _float([list(row) for row in zip(*signed)])
    _pascal_table(n, kind)  # (validates kind)
    # pascal = L L^T with L lower Pascal, so its inverse is L^-T L^-1
    table = [[sum(signed[k][i] * signed[k][j] for k in range(n)) for j in range(n)]
             for i in range(n)]
    return _float(table)


def helmert(n: int, full: bool = False):
    """The Helmert matrix (orthogonal; without its first row unless full)."""
    n = int(n)
    table = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    scale = np.arange(n) * np.arange(1, n + 1)
    table[0], scale[0] = 1, n
    table = table / np.sqrt(scale)[:, None]
    return _float(table if full else table[1:])


def hadamard(n: int, dtype=int):
    """Sylvester's Hadamard matrix of order n, a power of 2."""
    n = int(n)
    if n < 1 or n & (n - 1):
        raise ValueError("hadamard: n must be a positive power of 2")
    table = np.ones((1, 1), np.int64)
    while table.shape[0] < n:
        table = np.block([[table, table], [table, -table]])
    return jnp.asarray(table.astype(np.dtype(dtype)))


def dft(n: int, scale=None, *, dtype=None):
    """The n-point DFT matrix exp(-2 pi i jk / n), scaled by 1/sqrt(n) or 1/n if asked."""
    n = int(n)
    if scale not in (None, "sqrtn", "n"):
        raise ValueError("dft: scale must be None, 'sqrtn' or 'n'")
    k = np.arange(n)
    table = np.exp(-2j * np.pi * np.outer(k, k) / n)
    table = table / {None: 1.0, "sqrtn": math.sqrt(n), "n": float(n)}[scale]
    return jnp.asarray(table.astype(np.dtype(dtype) if dtype is not None
                                    else config.default_dtype("complex")))
