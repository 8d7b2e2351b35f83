"""Jitted helpers that generated Numba modules call as `rt.<name>` (loops too long to inline).

Array helpers see canonical views so that one helper serves every rank: reductions see
(kept, reduced) rows, axis operations see (before, axis, after) blocks.  The caller allocates
each output with the dtype its aval says; helpers only fill it, so they never choose a dtype.
NaN propagates through max/min as in NumPy.
"""

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .. import vecmath
from .alloc_runtime import ALIGN, clip_index, empty, full, transposed, zeros  # noqa: F401  (generated code's)
from .copy_runtime import put  # noqa: F401  (generated code's)
from .parallel_runtime import parallel  # noqa: F401  (generated code's)

njit = numba.njit(cache=True, error_model="numpy")


# ---------------------------------------------------------------- arguments
# An argument of at most this many bytes that a kernel's loop reads again and again is copied
# to an address aligned to a cache line when it is not (NumPy aligns to 16 bytes): a 512x32
# float32 matrix read by a training loop's two products each step, 100 steps, 0.41 against
# 0.34 ms aligned. A larger one streams from memory, where alignment matters less than a copy.
ALIGNED_COPY_BYTES = 1 << 18


@numba.njit(inline="always", error_model="numpy")  # (typed in its kernel: no compile of its own)
def aligned(a):
    """`a` itself where its data is aligned to a cache line (or where it is large), else a
    copy that is (the kernels' own arrays are: see alloc_runtime.ALIGN)."""
    if a.ctypes.data % ALIGN == 0 or a.nbytes > ALIGNED_COPY_BYTES:
        return a
    out = empty(a.shape, a.dtype)
    put(out, a)  # (not `out[...] = a`: see put)
    return out


# ---------------------------------------------------------------- scalars
@njit
def max_nan(a, b):
    """NumPy's maximum on scalars: NaN wins."""
    return a if (a > b or a != a) else b


@njit
def min_nan(a, b):
    return a if (a < b or a != a) else b


@intrinsic
def bitcast(typingctx, x, target):
    """x's bits as the scalar type `target` (a NumPy scalar class of the same width)."""
    to = getattr(target, "instance_type", None)
    if not isinstance(to, (types.Integer, types.Float)) or to.bitwidth != x.bitwidth:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], context.get_value_type(to))
    return to(x, target), codegen


# ---------------------------------------------------------------- polygamma
# B_2k / (2k)!, k = 1..12: the asymptotic series of psi^(m)
_B2K_OVER_FACT = np.array([
    0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
    2.08767569878681e-08, -5.284190138687493e-10, 1.3382536530684679e-11,
    -3.3896802963225827e-13, 8.586062056277845e-15, -2.174868698558062e-16,
    5.5090028283602295e-18, -1.3954464685812525e-19])


@njit
def polygamma(m, x):
    """scipy.special.polygamma(m, x) in float64: psi^(m)(x) = (-1)**(m+1) m! zeta(m+1, x).

    nan unless m is a non-negative integer; at 0, the negative integers and -inf the sign of
    the pole of order m+1 seen from the right (SciPy's); x < 0 by reflection."""
    if not (m >= 0.0 and m == np.floor(m)) or x != x:
        return np.nan
    if m == 0.0:
        return vecmath.digamma(x)
    n = int(m)
    sign = 1.0 if n % 2 == 1 else -1.0
    if x == np.inf:
        return sign * 0.0
    if x <= 0.0 and x == np.floor(x):
        return sign * np.inf
    if x < 0.0:
        return _polygamma_reflected(n, x)
    return sign * _polygamma_magnitude(n, x)


@njit
def _polygamma_magnitude(n, x):
    """|psi^(n)(x)| for x > 0, n >= 1: m! sum over k of (x + k)**-(n+1) up to x + k >= 20 + n,
    then the asymptotic series; every term positive."""
    fact = 1.0
    for j in range(2, n + 1):
        fact *= j
    head = 0.0
    while x < 20.0 + n:
        head += x ** -(n + 1.0)
        x += 1.0
    inv = 1.0 / x
    tail = fact / n * inv ** n + 0.5 * fact * inv ** (n + 1)  # (n-1)!/x^n + n!/(2 x^(n+1))
    rising = fact * (n + 1)  # (2k + n - 1)! for k = 1
    power = inv ** (n + 2)
    for k in range(_B2K_OVER_FACT.size):
        tail += _B2K_OVER_FACT[k] * rising * power
        rising *= (2 * k + n + 2) * (2 * k + n + 3)
        power *= inv * inv
    return fact * head + tail


@njit
def _polygamma_reflected(n, x):
    """psi^(n)(x) = (-1)**n psi^(n)(1 - x) - pi**(n+1) cot^(n)(pi x), the n-th derivative of
    cot a polynomial in c = cot: P_0 = c, P_(j+1) = -(1 + c^2) P_j'."""
    r = x - np.rint(x)  # exact: cot(pi x) = cot(pi r)
    # cos(pi r) = sin(pi (1/2 - |r|)), 1/2 - |r| exact: c keeps its accuracy next to its zero
    c = np.sin(np.pi * (0.5 - abs(r))) / np.sin(np.pi * r)
    coef = np.zeros(n + 2)
    coef[1] = 1.0
    for j in range(n):
        deriv = np.zeros(n + 2)
        for i in range(1, j + 3):
            deriv[i - 1] = i * coef[i]
        coef = np.zeros(n + 2)
        for i in range(n + 1):  # -(1 + c^2) * deriv
            coef[i] -= deriv[i]
            coef[i + 2] -= deriv[i]
    value = 0.0
    for i in range(n + 1, -1, -1):
        value = value * c + coef[i]
    sign = 1.0 if n % 2 == 0 else -1.0
    other = (1.0 if n % 2 == 1 else -1.0) * _polygamma_magnitude(n, 1.0 - x)
    return sign * other - np.pi ** (n + 1) * value


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
        put(out[k], np.sort(x[k]))


@njit
def argsort_rows(x, out):
    for k in range(x.shape[0]):
        put(out[k], np.argsort(x[k], kind="mergesort"))  # (stable, as the NumPy backend)


# ---------------------------------------------------------------- indexing on (P, N, Q)
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
def batched_matmul_loop(a, b, out):
    """The same for dtypes BLAS lacks (integers, bool): out zero-filled by the caller."""
    for i in range(a.shape[0]):
        for m in range(a.shape[1]):
            for k in range(a.shape[2]):
                av = a[i, m, k]
                for n in range(b.shape[2]):
                    out[i, m, n] += av * b[i, k, n]


# ---------------------------------------------------------------- tapes
@njit
def room_for(tape, k):
    """The tape itself when row k fits, else a copy twice as long (amortised O(1) per row)."""
    if k < tape.shape[0]:
        return tape
    grown = np.empty((2 * tape.shape[0] + 1,) + tape.shape[1:], tape.dtype)
    put(grown[:k], tape[:k])
    return grown


# ---------------------------------------------------------------- accumulation
def _accumulate(float_op, int_op, plain):
    """acc op v for a loop-carried accumulator: its float instruction alone may be reassociated
    (`reassoc`), so LLVM vectorises the reduction loop without fast-math anywhere else; complex
    accumulators take the plain operation."""
    def typer(typingctx, acc, v):
        if acc != v or not isinstance(acc, (types.Float, types.Integer, types.Complex)):
            return None

        def codegen(context, builder, sig, args):
            if isinstance(sig.return_type, types.Complex):
                return context.compile_internal(builder, plain, sig, args)
            if isinstance(sig.return_type, types.Float):
                instr = getattr(builder, float_op)(*args)
                instr.flags.append("reassoc")
                return instr
            return getattr(builder, int_op)(*args)
        return acc(acc, v), codegen
    return typer


@intrinsic
def radd(typingctx, acc, v):
    """acc + v, regrouped freely within a reduction."""
    return _accumulate("fadd", "add", lambda a, b: a + b)(typingctx, acc, v)


@intrinsic
def rmul(typingctx, acc, v):
    """acc * v, regrouped freely within a reduction."""
    return _accumulate("fmul", "mul", lambda a, b: a * b)(typingctx, acc, v)


def _extremum(float_name, int_predicate, bool_op):
    """max/min for a loop-carried accumulator: llvm.maximum/minimum on floats (NaN wins, as in
    NumPy, and loops over them vectorise), a compare and select on integers, or/and on bools."""
    def typer(typingctx, acc, v):
        if acc != v or not isinstance(acc, (types.Float, types.Integer, types.Boolean)):
            return None

        def codegen(context, builder, sig, args):
            t = args[0].type
            if isinstance(sig.return_type, types.Boolean):
                return getattr(builder, bool_op)(*args)
            if isinstance(sig.return_type, types.Float):
                name = f"llvm.{float_name}.{'f32' if sig.return_type == types.float32 else 'f64'}"
                fn = builder.module.globals.get(name) or ir.Function(
                    builder.module, ir.FunctionType(t, [t, t]), name)
                return builder.call(fn, args)
            signed = sig.return_type.signed
            op = int_predicate if signed else int_predicate.replace("s", "u", 1)
            return builder.select(builder.icmp_signed(op[1:], *args) if signed else
                                  builder.icmp_unsigned(op[1:], *args), args[0], args[1])
        return acc(acc, v), codegen
    return typer


@intrinsic
def rmax(typingctx, acc, v):
    """The larger of acc and v (NaN if either is)."""
    return _extremum("maximum", "s>", "or_")(typingctx, acc, v)


@intrinsic
def rmin(typingctx, acc, v):
    """The smaller of acc and v (NaN if either is)."""
    return _extremum("minimum", "s<", "and_")(typingctx, acc, v)


from .linalg_runtime import (cholesky_batch, eigh_batch, lower_solve_batch, lu_batch,  # noqa: E402,F401
                             qr_batch, singular_values_batch, svd_batch)
from .fft_runtime import fft_into  # noqa: E402,F401
from .conv_runtime import conv5, conv5_gemm  # noqa: E402,F401
from .product_runtime import batched_dot, dot  # noqa: E402,F401
from .eig_runtime import eig_into, schur_into  # noqa: E402,F401
from astjax.core import processes  # noqa: E402,F401  (MPI collectives, from object mode)
