"""Derivatives of the linear-algebra primitives, as JAX defines them (real matrices).

JVPs are JAX's rules (`jax._src.lax.linalg`); each VJP is the transpose of its JVP, written
out. Conventions kept from JAX: eigh and svd derivatives put 0 where two eigen/singular values
coincide (the reciprocal-difference matrix has zeros on its diagonal, inf off it); qr's
derivative needs m >= n and the reduced form; svd's needs full_matrices=False.
"""
from astjax.core.bind import bind
from astjax.errors import TransformError

from .matrices import (as_column, as_row, cols_scaled, columns, diag_embed, diagonal, eye_like,
                       index_grid, mm, mT, pad_to, rows_of, solve_triangular, tril, triu)
from .rules import JVP, VJP, add_all
from .util import aval


def _sub(a, b):
    return bind("sub", a, b)


def _add(a, b):
    return bind("add", a, b)


def _half_diagonal(x):
    """phi(x): the lower triangle with the diagonal halved (a mask, so its own transpose)."""
    low = tril(x)
    return _sub(low, bind("mul", 0.5, diag_embed(diagonal(x))))


# ---------------------------------------------------------------- cholesky
@JVP.register("cholesky")
def _cholesky_jvp(primals, tangents):
    x, = primals
    low = bind("cholesky", x)
    if tangents[0] is None:
        return low, None
    inner = solve_triangular(low, solve_triangular(low, tangents[0], left_side=False,
                                                   transpose_a=True, lower=True),
                             left_side=True, lower=True)
    return low, mm(low, _half_diagonal(inner))


@VJP.register("cholesky")
def _cholesky_vjp(ct, x, out):
    # dL = L phi(L^-1 dA L^-T)  =>  dA_bar = L^-T phi(L^T L_bar) L^-1
    inner = _half_diagonal(mm(mT(out), ct))
    left = solve_triangular(out, inner, left_side=True, lower=True, transpose_a=True)
    return [solve_triangular(out, left, left_side=False, lower=True)]


# ---------------------------------------------------------------- triangular_solve
def _triangle(g, lower, unit_diagonal):
    k = 1 if unit_diagonal else 0
    return tril(g, -k) if lower else triu(g, k)


@JVP.register("triangular_solve")
def _triangular_solve_jvp(primals, tangents, **params):
    a, b = primals
    ans = bind("triangular_solve", a, b, **params)
    terms = []
    if tangents[1] is not None:
        terms.append(bind("triangular_solve", a, tangents[1], **params))
    if tangents[0] is not None:
        g = bind("neg", _triangle(tangents[0], params["lower"], params["unit_diagonal"]))
        g = mT(g) if params["transpose_a"] else g
        solved = bind("triangular_solve", a, g, **params)
        # left: (op(A)^-1 dA) X; right: X (dA op(A)^-1)
        terms.append(mm(solved, ans) if params["left_side"] else mm(ans, solved))
    return ans, add_all(terms)


@VJP.register("triangular_solve")
def _triangular_solve_vjp(ct, a, b, out, **params):
    # op(A) X = B (left) or X op(A) = B (right): B_bar solves the transposed system, and
    # op(A)_bar = -B_bar X^T (left) or -X^T B_bar (right), kept on A's triangle.
    b_bar = bind("triangular_solve", a, ct, **{**params, "transpose_a": not params["transpose_a"]})
    op_bar = bind("neg", mm(b_bar, mT(out)) if params["left_side"] else mm(mT(out), b_bar))
    a_bar = mT(op_bar) if params["transpose_a"] else op_bar
    return [_triangle(a_bar, params["lower"], params["unit_diagonal"]), b_bar]


# ---------------------------------------------------------------- lu
def _lu_factors(lu, m, n):
    """(L, U) as square m x m and n x n matrices (unit diagonal on L, and on U past min(m, n))."""
    k = min(m, n)
    low = pad_to(tril(columns(lu, 0, k), -1), m, m)
    low = _add(low, eye_like(low))
    up = pad_to(triu(rows_of(lu, 0, k)), n, n)
    if n > k:
        rows_, cols_ = index_grid(up)
        up = _add(up, bind("convert", bind("bitwise_and", bind("eq", rows_, cols_), bind("ge", rows_, k)),
                           dtype=aval(up).dtype.name))
    return low, up


def _permute_rows(x, permutation):
    """x[..., permutation, :]."""
    index = bind("convert", as_column(permutation), dtype="int64")
    index = bind("broadcast_in_dim", index, shape=aval(x).shape,
                 broadcast_dimensions=tuple(range(aval(x).ndim)))
    return bind("take_along_axis", x, index, axis=aval(x).ndim - 2)


@JVP.register("lu")
def _lu_jvp(primals, tangents):
    a, = primals
    lu, pivots, permutation = bind("lu", a)
    if tangents[0] is None:
        return [lu, pivots, permutation], [None, None, None]
    m, n = aval(a).shape[-2:]
    low, up = _lu_factors(lu, m, n)
    x = _permute_rows(tangents[0], permutation)
    la = solve_triangular(low, x, left_side=True, lower=True, unit_diagonal=True)
    lau = solve_triangular(up, la, left_side=False, lower=False)
    lu_dot = _add(mm(low, tril(lau, -1)), mm(triu(lau), up))
    return [lu, pivots, permutation], [lu_dot, None, None]


@VJP.register("lu")
def _lu_vjp(ct, a, out):
    lu, _, permutation = out
    if ct[0] is None:
        return [None]
    m, n = aval(a).shape[-2:]
    low, up = _lu_factors(lu, m, n)
    lau_bar = _add(tril(mm(mT(low), ct[0]), -1), triu(mm(ct[0], mT(up))))
    la_bar = solve_triangular(up, lau_bar, left_side=False, lower=False, transpose_a=True)
    x_bar = solve_triangular(low, la_bar, left_side=True, lower=True, transpose_a=True,
                             unit_diagonal=True)
    inverse = bind("argsort", permutation, dimension=aval(permutation).ndim - 1,
                   index_dtype="int32")
    return [_permute_rows(x_bar, inverse)]


# ---------------------------------------------------------------- qr
def _qr_differentiable(a, full_matrices):
    m, n = aval(a).shape[-2:]
    if m < n or (full_matrices and m != n):
        raise TransformError("the derivative of qr needs a tall or square matrix (m >= n) and, "
                             "unless square, full_matrices=False", hint="as in JAX: use "
                             "jnp.linalg.qr(x, mode='reduced') on a matrix with m >= n")


@JVP.register("qr")
def _qr_jvp(primals, tangents, full_matrices):
    a, = primals
    outs = bind("qr", a, full_matrices=full_matrices)
    if tangents[0] is None:
        return outs, [None, None]
    _qr_differentiable(a, full_matrices)
    q, r = outs
    dx_rinv = solve_triangular(r, tangents[0])
    qt_dx_rinv = mm(mT(q), dx_rinv)
    lower = tril(qt_dx_rinv, -1)
    skew = _sub(lower, mT(lower))
    dq = _add(mm(q, _sub(skew, qt_dx_rinv)), dx_rinv)
    dr = mm(_sub(qt_dx_rinv, skew), r)
    return outs, [dq, dr]


@VJP.register("qr")
def _qr_vjp(ct, a, out, full_matrices):
    _qr_differentiable(a, full_matrices)
    q, r = out
    q_bar = ct[0] if ct[0] is not None else bind("full", 0, shape=aval(q).shape,
                                                   dtype=aval(q).dtype.name)
    g = mm(mT(q), q_bar)
    h = mm(ct[1], mT(r)) if ct[1] is not None else None
    skew_bar = _sub(g, h) if h is not None else g
    c_bar = bind("neg", skew_bar)
    lower_bar = _sub(skew_bar, mT(skew_bar))
    c_bar = _add(c_bar, tril(lower_bar, -1))
    b_bar = _add(q_bar, mm(q, c_bar))
    return [solve_triangular(r, b_bar, transpose_a=True)]


# ---------------------------------------------------------------- eigh
def _reciprocal_gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (JAX's Fmat)."""
    col, row = as_column(w), as_row(w)
    gaps = _sub(row, col)
    eye = eye_like(gaps)
    return _sub(bind("div", 1.0, _add(eye, gaps)), eye)


@JVP.register("eigh")
def _eigh_jvp(primals, tangents, lower):
    a, = primals
    v, w = bind("eigh", a, lower=lower)
    if tangents[0] is None:
        return [v, w], [None, None]
    inner = mm(mm(mT(v), tangents[0]), v)
    dv = mm(v, bind("mul", _reciprocal_gaps(w), inner))
    return [v, w], [dv, diagonal(inner)]


@VJP.register("eigh")
def _eigh_vjp(ct, a, out, lower):
    v, w = out
    terms = []
    if ct[0] is not None:
        terms.append(bind("mul", _reciprocal_gaps(w), mm(mT(v), ct[0])))
    if ct[1] is not None:
        terms.append(diag_embed(ct[1]))
    inner_bar = add_all(terms)
    return [None if inner_bar is None else mm(mm(v, inner_bar), mT(v))]


# ---------------------------------------------------------------- svd
def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal, 0 on it."""
    col, row = as_column(s), as_row(s)
    diffs = bind("mul", _add(row, col), _sub(row, col))
    eye = eye_like(diffs)
    return _sub(bind("div", 1.0, _add(diffs, eye)), eye)


def _svd_differentiable(full_matrices, compute_uv):
    if compute_uv and full_matrices:
        raise TransformError("the derivative of svd with full_matrices=True is not defined "
                             "(as in JAX)", hint="use jnp.linalg.svd(x, full_matrices=False)")


@JVP.register("svd")
def _svd_jvp(primals, tangents, full_matrices, compute_uv):
    a, = primals
    outs = bind("svd", a, full_matrices=full_matrices, compute_uv=compute_uv)
    if tangents[0] is None:
        return outs, [None] * len(outs)
    _svd_differentiable(full_matrices, compute_uv)
    s, u, vt = outs if compute_uv else bind("svd", a, full_matrices=False, compute_uv=True)
    da, v = tangents[0], mT(vt)
    ds_mat = mm(mm(mT(u), da), v)
    ds = diagonal(ds_mat)
    if not compute_uv:
        return outs, [ds]
    f = _svd_gaps(s)
    dss, sds = cols_scaled(ds_mat, s), bind("mul", ds_mat, as_column(s))
    du = mm(u, bind("mul", f, _add(dss, mT(dss))))
    dv = mm(v, bind("mul", f, _add(sds, mT(sds))))
    m, n = aval(a).shape[-2:]
    if m > n:
        dav = mm(da, v)
        du = _add(du, bind("div", _sub(dav, mm(u, mm(mT(u), dav))), as_row(s)))
    if n > m:
        dahu = mm(mT(da), u)
        dv = _add(dv, bind("div", _sub(dahu, mm(v, mm(vt, dahu))), as_row(s)))
    return outs, [ds, du, mT(dv)]


@VJP.register("svd")
def _svd_vjp(ct, a, out, full_matrices, compute_uv):
    _svd_differentiable(full_matrices, compute_uv)
    s, u, vt = out if compute_uv else bind("svd", a, full_matrices=False, compute_uv=True)
    v = mT(vt)
    s_bar, u_bar = ct[0], (ct[1] if compute_uv else None)
    v_bar = mT(ct[2]) if compute_uv and ct[2] is not None else None
    terms = [diag_embed(s_bar)] if s_bar is not None else []
    f = _svd_gaps(s)
    if u_bar is not None:
        x = bind("mul", f, mm(mT(u), u_bar))
        terms.append(cols_scaled(_add(x, mT(x)), s))
    if v_bar is not None:
        z = bind("mul", f, mm(vt, v_bar))
        terms.append(bind("mul", _add(z, mT(z)), as_column(s)))
    inner = add_all(terms)
    a_bar = [None if inner is None else mm(mm(u, inner), vt)]
    m, n = aval(a).shape[-2:]
    if u_bar is not None and m > n:
        w = bind("div", u_bar, as_row(s))
        a_bar.append(mm(_sub(w, mm(u, mm(mT(u), w))), vt))
    if v_bar is not None and n > m:
        w = bind("div", v_bar, as_row(s))
        a_bar.append(mm(u, mT(_sub(w, mm(v, mm(vt, w))))))
    return [add_all(a_bar)]


# ---------------------------------------------------------------- eig
def _eigenvector_derivatives_refused(compute_left, compute_right):
    if compute_left or compute_right:
        raise TransformError("derivatives of non-symmetric eigenvectors are not defined "
                             "(as in JAX: they depend on a normalisation)",
                             hint="differentiate the eigenvalues (jnp.linalg.eigvals), or use "
                                  "eigh for a symmetric matrix")


def _eig_with_both_sides(a):
    """(w, u, v): the eigenvalues with left and right eigenvectors, and u_i^H v_i per i."""
    w, u, v = bind("eig", a, compute_left_eigenvectors=True, compute_right_eigenvectors=True)
    u_conj = bind("conj", u)
    overlap = _sum_rows(bind("mul", u_conj, v))
    return w, u_conj, v, overlap


def _sum_rows(x):
    """sum over axis -2 (the column sums of each matrix)."""
    return bind("reduce_sum", x, axes=(aval(x).ndim - 2,))


def _as_complex(x, like):
    dtype = aval(like).dtype
    return x if aval(x).dtype == dtype else bind("convert", x, dtype=dtype.name)


@JVP.register("eig")
def _eig_jvp(primals, tangents, compute_left_eigenvectors, compute_right_eigenvectors):
    """dw_i = u_i^H da v_i / u_i^H v_i (distinct eigenvalues, as JAX)."""
    a, = primals
    outs = bind("eig", a, compute_left_eigenvectors=compute_left_eigenvectors,
                compute_right_eigenvectors=compute_right_eigenvectors)
    if tangents[0] is None:
        return outs, [None] * len(outs)
    _eigenvector_derivatives_refused(compute_left_eigenvectors, compute_right_eigenvectors)
    w, u_conj, v, overlap = _eig_with_both_sides(a)
    da = _as_complex(tangents[0], w)
    dw = bind("div", _sum_rows(bind("mul", u_conj, mm(da, v))), overlap)
    return outs, [dw]


@VJP.register("eig")
def _eig_vjp(ct, a, out, compute_left_eigenvectors, compute_right_eigenvectors):
    """a_bar = conj(U) diag(w_bar / s) V^T, its real part for a real a."""
    if all(c is None for c in ct[1:]) and ct[0] is None:
        return [None]
    _eigenvector_derivatives_refused(compute_left_eigenvectors, compute_right_eigenvectors)
    w, u_conj, v, overlap = _eig_with_both_sides(a)
    a_bar = mm(cols_scaled(u_conj, bind("div", _as_complex(ct[0], w), overlap)), mT(v))
    return [a_bar if aval(a).dtype.kind == "c" else bind("real", a_bar)]


# ---------------------------------------------------------------- schur
@JVP.register("schur")
def _schur_jvp(primals, tangents, compute_schur_vectors):
    outs = bind("schur", primals[0], compute_schur_vectors=compute_schur_vectors)
    if tangents[0] is not None:
        raise TransformError("the Schur decomposition has no derivative (as in JAX)")
    return outs, [None] * len(outs)


@VJP.register("schur")
def _schur_vjp(ct, a, out, compute_schur_vectors):
    if any(c is not None for c in ct):
        raise TransformError("the Schur decomposition has no derivative (as in JAX)")
    return [None]
