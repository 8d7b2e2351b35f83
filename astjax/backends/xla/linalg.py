"""Linear algebra: LAPACK through the typed-FFI custom calls jaxlib registers on CPU
(`lapack_<t>potrf_ffi`, `..trsm..`, `..getrf..`, `..geqrf..`/`..orgqr..`, `..syevd..`,
`..gesdd..`, `..geev..`, `..gees..`), the same kernels and conventions JAX's CPU lowering uses: matrices column-major
(`operand_layouts`), batch axes outermost, a failed factorisation (LAPACK's info != 0) NaN."""
import numpy as np

from .emit import LOWER, i64_array

_PREFIX = {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
           np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}


def _layout(rank: int, matrix: bool) -> str:
    """Column-major trailing matrices with the batch outermost; row-major otherwise."""
    order = [rank - 2, rank - 1] + list(range(rank - 3, -1, -1)) if matrix and rank >= 2 \
        else list(range(rank - 1, -1, -1))
    if not order:
        return "dense<> : tensor<0xindex>"
    return f"dense<[{', '.join(map(str, order))}]> : tensor<{rank}xindex>"


def _target(name: str, dtype) -> str:
    prefix = _PREFIX.get(np.dtype(dtype))
    if prefix is None:
        raise NotImplementedError(f"LAPACK on {np.dtype(dtype).name}")
    return f"lapack_{prefix}{name}_ffi"


def _lapack(body, name, operands, results, config: dict, batch: int, matrices):
    """One custom call; `matrices[k]` says whether result k is a matrix (column-major)."""
    ins = ", ".join(_layout(v.ndim, v.ndim >= 2) for v in operands)
    outs = ", ".join(_layout(len(shape), is_matrix)
                     for (shape, _), is_matrix in zip(results, matrices))
    settings = ", ".join(f"{k} = {ord(v)} : ui8" for k, v in config.items())
    attrs = (f'api_version = 1 : i32, backend_config = "", '
             f'call_target_name = "{_target(name, operands[0].dtype)}", '
             f"operand_layouts = [{ins}], result_layouts = [{outs}], "
             f"mhlo.backend_config = {{{settings}}}, "
             f'mhlo.frontend_attributes = {{num_batch_dims = "{batch}"}}')
    return body.op("stablehlo.custom_call", list(operands), results, attrs, hint=name)


def _nan_unless_ok(body, info, value, nb):
    """`value` where LAPACK's info is 0, NaN across the whole matrix where it is not."""
    ok = body.compare(info, body.constant(0, np.int32, info.shape), "EQ")
    ok = body.broadcast_in_dim(ok, value.shape, range(nb))
    return body.select(ok, value, body.constant(np.nan, value.dtype, value.shape))


def _triangle(body, x, lower: bool):
    """The lower (or upper) triangle of x, zeros elsewhere."""
    nd = x.ndim
    rows = body.op1("stablehlo.iota", [], x.shape, np.int32, f"iota_dimension = {nd - 2} : i64")
    cols = body.op1("stablehlo.iota", [], x.shape, np.int32, f"iota_dimension = {nd - 1} : i64")
    keep = body.compare(cols, rows, "LE" if lower else "GE")
    return body.select(keep, x, body.constant(0, x.dtype, x.shape))


def _slice(body, x, limits):
    """x[..., :limits[-2], :limits[-1]] (limits for the trailing axes)."""
    full = list(x.shape[:x.ndim - len(limits)]) + list(limits)
    if tuple(full) == x.shape:
        return x
    return body.op1("stablehlo.slice", [x], full, x.dtype,
                    f"start_indices = {i64_array([0] * x.ndim)}, "
                    f"limit_indices = {i64_array(full)}, strides = {i64_array([1] * x.ndim)}")


@LOWER.register("cholesky")
def _cholesky(body, eqn, a):
    nb = a.ndim - 2
    factor, info = _lapack(body, "potrf", [a], [(a.shape, a.dtype), (a.shape[:nb], np.int32)],
                           {"uplo": "L"}, nb, [True, False])
    return [_nan_unless_ok(body, info, _triangle(body, factor, True), nb)]


@LOWER.register("triangular_solve")
def _triangular_solve(body, eqn, a, b):
    p, out = eqn.params, eqn.outs[0].aval
    a, b = body.convert(a, out.dtype), body.convert(b, out.dtype)
    config = {"side": "L" if p["left_side"] else "R", "uplo": "L" if p["lower"] else "U",
              "trans_x": "T" if p["transpose_a"] else "N",
              "diag": "U" if p["unit_diagonal"] else "N"}
    return _lapack(body, "trsm", [a, b], [(b.shape, b.dtype)], config, a.ndim - 2, [True])


@LOWER.register("lu")
def _lu(body, eqn, a):
    nb, m = a.ndim - 2, a.shape[-2]
    batch, k = a.shape[:nb], min(a.shape[-2:])
    lu, pivots, _ = _lapack(body, "getrf", [a], [(a.shape, a.dtype), (batch + (k,), np.int32),
                                                  (batch, np.int32)], {}, nb, [True, False, False])
    pivots = body.binary("stablehlo.subtract", pivots, body.constant(1, np.int32, pivots.shape))
    return [lu, pivots, _permutation(body, pivots, m)]


def _permutation(body, pivots, m):
    """The row permutation the swaps make: a `stablehlo.while` over the k swaps, each a
    select pass (written once: unrolled, a 32x32 LU's 32 passes took XLA 1.4 s to compile)."""
    from .control import while_op
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    shape, nb = batch + (m,), len(batch)
    index = body.op1("stablehlo.iota", [], shape, np.int32, f"iota_dimension = {nb} : i64")
    if k == 0:
        return index

    def swap(r, values):
        j, perm = values
        p = r.broadcast_in_dim(_column(r, pivots, j), shape, range(nb))
        at_p = r.compare(index, p, "EQ")
        picked = r.select(at_p, perm, r.constant(0, np.int32, shape))
        moved, = r.reduce([picked], [r.constant(0, np.int32)], [nb],
                          lambda q, x, y: [q.binary("stablehlo.add", x[0], y[0])])
        moved = r.broadcast_in_dim(moved, shape, range(nb))
        here = r.broadcast_in_dim(_column(r, perm, j), shape, range(nb))
        at_j = r.compare(index, r.broadcast(j, shape), "EQ")
        perm = r.select(at_j, moved, r.select(at_p, here, perm))
        return [r.binary("stablehlo.add", j, r.constant(1, np.int32)), perm]

    start = body.constant(0, np.int32)
    _, perm = while_op(body, [start, index],
                       lambda r, values: r.compare(values[0], r.constant(k, np.int32), "LT"),
                       swap, hint="permutation")
    return perm


def _column(body, x, j):
    """x[..., j] for a scalar int32 Value j (an array of the batch shape)."""
    nb = x.ndim - 1
    zero = body.constant(0, np.int32)
    sizes = x.shape[:nb] + (1,)
    cut = body.op1("stablehlo.dynamic_slice", [x] + [zero] * nb + [j], sizes, x.dtype,
                   f"slice_sizes = {i64_array(sizes)}")
    return body.reshape(cut, x.shape[:nb])


@LOWER.register("qr")
def _qr(body, eqn, a):
    nb, (m, n) = a.ndim - 2, a.shape[-2:]
    batch, k = a.shape[:nb], min(m, n)
    r, taus = _lapack(body, "geqrf", [a], [(a.shape, a.dtype), (batch + (k,), a.dtype)], {},
                      nb, [True, False])
    full = eqn.params["full_matrices"]
    if m < n:
        reflectors = _slice(body, r, (m, m))
    elif full:
        zero = body.constant(0, a.dtype)
        reflectors = body.op1("stablehlo.pad", [r, zero], batch + (m, m), a.dtype,
                              f"edge_padding_low = {i64_array([0] * a.ndim)}, "
                              f"edge_padding_high = {i64_array([0] * (a.ndim - 1) + [m - n])}, "
                              f"interior_padding = {i64_array([0] * a.ndim)}")
    else:
        reflectors = r
        r = _slice(body, r, (n, n))
    q, = _lapack(body, "orgqr", [reflectors, taus], [(reflectors.shape, a.dtype)], {}, nb, [True])
    return [q, _triangle(body, r, False)]


@LOWER.register("eigh")
def _eigh(body, eqn, a):
    nb = a.ndim - 2
    w_dtype = eqn.outs[1].aval.dtype
    v, w, info = _lapack(body, "syevd", [a], [(a.shape, a.dtype), (a.shape[:-1], w_dtype),
                                              (a.shape[:nb], np.int32)],
                         {"mode": "V", "uplo": "L" if eqn.params["lower"] else "U"}, nb,
                         [True, False, False])
    return [_nan_unless_ok(body, info, v, nb), _nan_unless_ok(body, info, w, nb)]


@LOWER.register("svd")
def _svd(body, eqn, a):
    p = eqn.params
    nb, (m, n) = a.ndim - 2, a.shape[-2:]
    batch, k = a.shape[:nb], min(m, n)
    mode = "N" if not p["compute_uv"] else ("A" if p["full_matrices"] else "S")
    u_cols, vt_rows = (m, n) if p["full_matrices"] else (k, k)
    s_dtype = eqn.outs[0].aval.dtype
    results = [(a.shape, a.dtype), (batch + (k,), s_dtype), (batch + (m, u_cols), a.dtype),
               (batch + (vt_rows, n), a.dtype), (batch, np.int32)]
    _, s, u, vt, info = _lapack(body, "gesdd", [a], results, {"mode": mode}, nb,
                                [True, False, True, True, False])
    outs = [s, u, vt] if p["compute_uv"] else [s]
    return [_nan_unless_ok(body, info, v, nb) for v in outs]


@LOWER.register("eig")
def _eig(body, eqn, a):
    """geev: a real matrix's eigenvalues come as (real, imaginary) parts, its eigenvectors
    already unpacked to complex by the kernel."""
    p = eqn.params
    nb = a.ndim - 2
    w_dtype = eqn.outs[0].aval.dtype
    values = [(a.shape[:-1], a.dtype)] * 2 if a.dtype.kind == "f" else [(a.shape[:-1], w_dtype)]
    results = values + [(a.shape, w_dtype), (a.shape, w_dtype), (a.shape[:nb], np.int32)]
    flag = {True: "V", False: "N"}
    *w, vl, vr, info = _lapack(body, "geev", [a], results,
                               {"compute_left": flag[p["compute_left_eigenvectors"]],
                                "compute_right": flag[p["compute_right_eigenvectors"]]}, nb,
                               [False] * len(values) + [True, True, False])
    if len(w) == 2:
        w = [body.op1("stablehlo.complex", w, a.shape[:-1], w_dtype)]
    outs = w + ([vl] if p["compute_left_eigenvectors"] else []) + \
        ([vr] if p["compute_right_eigenvectors"] else [])
    return [_nan_unless_ok(body, info, v, nb) for v in outs]


@LOWER.register("schur")
def _schur(body, eqn, a):
    nb = a.ndim - 2
    values = [(a.shape[:-1], a.dtype)] * (2 if a.dtype.kind == "f" else 1)
    results = [(a.shape, a.dtype), (a.shape, a.dtype)] + values + \
        [(a.shape[:nb], np.int32), (a.shape[:nb], np.int32)]
    vectors = eqn.params["compute_schur_vectors"]
    t, z, *_, info = _lapack(body, "gees", [a], results,
                             {"mode": "V" if vectors else "N", "sort": "N"}, nb,
                             [True, True] + [False] * (len(values) + 2))
    return [_nan_unless_ok(body, info, v, nb) for v in ([t, z] if vectors else [t])]
