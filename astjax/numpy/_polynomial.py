"""Polynomials as coefficient vectors, highest power first (NumPy's `poly*` functions).

Coefficient counts are static (they are shapes); the coefficients themselves may be abstract, so
everything here differentiates and batches. `roots` finds the eigenvalues of the companion
matrix, as NumPy and JAX do.
"""
import numpy as np

from . import _util as u
from ._creation import _as_operand, asarray, eye, ones, zeros
from ._elementwise import multiply, power
from ._joining import concatenate
from ._linalg_ops import dot, outer
from ._reductions import sum
from ._shape import expand_dims, reshape
from ._util import bind


def _inexact(*arrays):
    """The arrays in one common inexact dtype (integers become float64), as JAX's poly*."""
    arrays = [_as_operand(a) for a in arrays]
    dtype = u.inexact_type_of(*arrays)
    return [a if u.dtype_of(a) == dtype else bind("convert", a, dtype=dtype.name)
            for a in arrays]


def _vector(p, name):
    if u.ndim(p) != 1:
        raise u.ShapeError(f"{name}: the coefficients must be a 1-D array, got shape "
                           f"{u.shape(p)}", hint="pass one polynomial at a time (or vmap)")
    return p


def polyval(p, x, *, unroll=16):
    """Horner's rule, one multiply-add per coefficient (p's leading axis; its other axes
    broadcast with x, as in NumPy and JAX: one polynomial per column)."""
    p, x = _inexact(p, x)
    if u.ndim(p) == 0:
        _vector(p, "polyval")
    out = zeros(u.shape(x), u.dtype_of(x))
    for i in range(u.shape(p)[0]):
        out = bind("add", bind("mul", out, x), p[i])
    return out


def polyadd(a1, a2):
    a1, a2 = _inexact(a1, a2)
    n1, n2 = u.shape(a1)[0], u.shape(a2)[0]
    if n1 < n2:
        a1, n1, n2, a2 = a2, n2, n1, a1
    return bind("add", a1, _pad_front(a2, n1 - n2))


def polysub(a1, a2):
    return polyadd(a1, bind("neg", _inexact(a2)[0]))


def _pad_front(p, count):
    return bind("pad", p, u.zero(u.dtype_of(p)), config=((count, 0, 0),)) if count else p


def polymul(a1, a2, *, trim_leading_zeros=False):
    from ._convolve import convolve
    a1, a2 = _inexact(a1, a2)
    if trim_leading_zeros:
        a1, a2 = trim_zeros(a1, "f"), trim_zeros(a2, "f")
    if u.shape(a1)[0] == 0 or u.shape(a2)[0] == 0:
        return zeros((0,), u.dtype_of(a1))
    return convolve(a1, a2, mode="full")


def polyder(p, m=1):
    p = _vector(_inexact(p)[0], "polyder")
    m = u.static_int(m, "polyder's order m")
    if m < 0:
        raise u.ShapeError("polyder: the order m must be non-negative")
    n = int(u.shape(p)[0])
    if m == 0:
        return p
    if m >= n:
        return zeros((0,), u.dtype_of(p))
    # the coefficient of x**j (j = n-1 ... m) gains the factor j (j-1) ... (j-m+1)
    factors = np.prod(np.arange(m, n)[None, :] - np.arange(m)[:, None], axis=0)[::-1]
    return bind("mul", p[:n - m], factors.astype(u.dtype_of(p)))


def polyint(p, m=1, k=None):
    p = _vector(_inexact(p)[0], "polyint")
    m = u.static_int(m, "polyint's order m")
    if m < 0:
        raise u.ShapeError("polyint: the order m must be non-negative")
    if m == 0:
        return p
    dtype = u.dtype_of(p)
    k = np.zeros(m, dtype) if k is None else _as_operand(k)
    k = reshape(k, (1,)) if u.ndim(k) == 0 else k
    if u.shape(k)[0] == 1 and m > 1:
        k = bind("broadcast_in_dim", reshape(k, ()), shape=(m,), broadcast_dimensions=())
    n = int(u.shape(p)[0])
    grid = np.arange(n + m)[None, :] - np.arange(m)[:, None]
    divisors = np.prod(np.maximum(1, grid), axis=0)[::-1].astype(dtype)
    k = k if u.dtype_of(k) == dtype else bind("convert", k, dtype=dtype.name)
    return bind("div", concatenate([p, k]), divisors)


def polydiv(u_, v, *, trim_leading_zeros=False):
    """Long division: (quotient, remainder) with u_ = quotient * v + remainder."""
    num, den = _inexact(u_, v)
    m, n = u.shape(num)[0] - 1, u.shape(den)[0] - 1
    scale = bind("div", 1, den[0])
    quotient = zeros((max(m - n + 1, 1),), u.dtype_of(num))
    rest = num
    for k in range(m - n + 1):
        d = bind("mul", scale, rest[k])
        quotient = quotient.at[k].set(d)
        rest = rest.at[k:k + n + 1].add(bind("neg", bind("mul", d, den)))
    if trim_leading_zeros:
        rest = trim_zeros(rest, "f")
    return quotient, rest


def poly(seq_of_zeros):
    """The monic polynomial with these roots (of a square matrix: its eigenvalues)."""
    zs = _as_operand(seq_of_zeros)
    if u.ndim(zs) == 2 and u.shape(zs)[0] == u.shape(zs)[1] and u.shape(zs)[0] > 0:
        from .linalg import eigvals
        zs = eigvals(zs)
    elif u.ndim(zs) != 1:
        raise u.ShapeError("poly: input must be a 1-D array of roots or a square matrix")
    zs = _inexact(zs)[0]
    coeffs = ones((1,), u.dtype_of(zs))
    for i in range(u.shape(zs)[0]):  # multiply by (x - z_i)
        coeffs = bind("sub", _pad_back(coeffs), bind("mul", zs[i], _pad_front(coeffs, 1)))
    return coeffs


def _pad_back(p):
    return bind("pad", p, u.zero(u.dtype_of(p)), config=((0, 1, 0),))


def vander(x, N=None, increasing=False):
    x = _as_operand(x)
    if u.ndim(x) != 1:
        raise u.ShapeError("vander: x must be a 1-D array")
    N = int(u.shape(x)[0]) if N is None else u.static_int(N, "vander's N")
    if N < 0:
        raise u.ShapeError("vander: N must be non-negative")
    exponents = np.arange(N) if increasing else np.arange(N)[::-1]
    return power(expand_dims(x, 1), asarray(exponents.copy()))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least squares fit of a polynomial of degree deg (columns scaled to unit norm first)."""
    from .linalg import inv, lstsq
    x, y = _inexact(x, y)
    deg = u.static_int(deg, "polyfit's degree")
    order = deg + 1
    n = int(u.shape(x)[0])  # (a symbolic size is pinned: the tolerance depends on it)
    rcond = n * float(np.finfo(u.dtype_of(x)).eps) if rcond is None else rcond
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _inexact(w)[0]
        lhs = multiply(lhs, expand_dims(w, 1))
        rhs = multiply(rhs, w if u.ndim(rhs) == 1 else expand_dims(w, 1))
    scale = bind("sqrt", sum(multiply(lhs, lhs), axis=0))
    lhs = bind("div", lhs, scale)
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = bind("div", c, scale if u.ndim(c) == 1 else expand_dims(scale, 1))
    if full:
        return c, resids, rank, s, np.asarray(rcond, u.dtype_of(x))
    if not cov:
        return c
    base = bind("div", inv(dot(lhs.T, lhs)), outer(scale, scale))
    if cov == "unscaled":
        factor = np.asarray(1.0, u.dtype_of(x))
    else:
        if n <= order:
            raise u.ShapeError("polyfit: cov needs more points than coefficients")
        factor = bind("div", resids, n - order)
    if u.ndim(y) == 1:
        return c, bind("mul", base, factor)
    return c, bind("mul", expand_dims(base, 2), factor)


def roots(p, *, strip_zeros=True):
    """The roots of p (complex), as the eigenvalues of its companion matrix."""
    from .linalg import eigvals
    p = _vector(_inexact(p)[0], "roots")
    complex_dtype = np.result_type(u.dtype_of(p), np.complex64)
    if strip_zeros:  # the number of roots then depends on the values: they must be concrete
        if u.is_abstract(p):
            raise u.concretization(
                "roots(p) drops p's leading and trailing zeros, so its length depends on the "
                "values of p", hint="pass strip_zeros=False (leading zeros then give nan roots)")
        values = np.asarray(p)
        nonzero = np.flatnonzero(values)
        if nonzero.size == 0:
            return zeros((0,), complex_dtype)
        inner = roots(asarray(values[nonzero[0]:nonzero[-1] + 1]), strip_zeros=False)
        at_zero = len(values) - nonzero[-1] - 1  # trailing zeros are roots at 0
        return concatenate([inner, zeros((at_zero,), complex_dtype)]) if at_zero else inner
    n = u.shape(p)[0]
    if n < 2:
        return zeros((0,), complex_dtype)
    dtype = u.dtype_of(p)
    first_row = reshape(bind("div", bind("neg", p[1:]), p[0]), (1, n - 1))
    shift = bind("pad", eye(n - 2, dtype=dtype), u.zero(dtype), config=((0, 0, 0), (0, 1, 0)))
    return eigvals(concatenate([first_row, shift], axis=0))


def trim_zeros(filt, trim="fb", axis=None):
    """The array without its leading ("f") and trailing ("b") zeros; needs concrete values."""
    if u.is_abstract(filt):
        raise u.concretization("trim_zeros has a result whose length depends on the values of "
                               "its input", hint="call it outside jit")
    return asarray(np.trim_zeros(np.asarray(filt), trim) if axis is None
                   else np.trim_zeros(np.asarray(filt), trim, axis=axis))


