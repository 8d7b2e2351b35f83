"""Matrix products through BLAS's gemm, called directly, split across threads.

Numba's `np.dot` calls one single-threaded gemm (see the backend on OpenBLAS's threads) and
compiles an internal function per pair of operand layouts (about 0.6 s each: most of a cold
compile of an MLP's gradient).  Here each operand is a C-contiguous array passed with a flag
saying whether the product reads it transposed, so one function per dtype serves every
layout, and a large product is cut into one block of output rows (or columns) per thread:
each block is one gemm call on the same operands at an offset, no copies.  On 2 cores a
256x784 @ 784x512 product took 2.4 ms as one call and 1.25 ms split.

gemm is SciPy's OpenBLAS `?gemm_` (Fortran: every argument by pointer), registered with LLVM
under a name of ours at import, so compiled code refers to it by name and stays cacheable.
Its address is read from the library itself: Numba's own wrapper resolves it on its first
call by taking the GIL, which a parallel loop's worker cannot do while the caller holds it.
"""
import ctypes
import glob
import os

import llvmlite.binding
import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

# Blocks per product: the thread count when the runtime was compiled (frozen into the
# cached machine code; a process with fewer threads runs the blocks in turn).
PARTS = max(1, numba.config.NUMBA_NUM_THREADS)
# Multiply-adds below which a product stays one call (~50 us on one thread): under it, the
# cost of starting the threads is not repaid.
SPLIT_MACS = 1 << 22

_SYMBOLS = {types.float32: "astjax_sgemm", types.float64: "astjax_dgemm"}


def openblas_libraries() -> list:
    """SciPy's bundled OpenBLAS (a wheel's scipy.libs), loaded; empty for other builds."""
    import scipy
    folder = os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)), "scipy.libs")
    return [ctypes.CDLL(path) for path in sorted(glob.glob(os.path.join(folder, "*openblas*.so*")))]


def _gemm_addresses() -> dict:
    """{our symbol: address} of sgemm and dgemm: from the bundled library when it exports
    them under a name we know, else through scipy.linalg.cython_blas (a slower import)."""
    found = {}
    for lib in openblas_libraries():
        for ours, kind in (("astjax_sgemm", "s"), ("astjax_dgemm", "d")):
            for name in (f"scipy_{kind}gemm_", f"{kind}gemm_"):
                if ours not in found and hasattr(lib, name):
                    found[ours] = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    if len(found) < 2:
        from numba.core.extending import get_cython_function_address
        found = {ours: get_cython_function_address("scipy.linalg.cython_blas", ours[-5:])
                 for ours in ("astjax_sgemm", "astjax_dgemm")}
    return found


for _symbol, _address in _gemm_addresses().items():
    llvmlite.binding.add_symbol(_symbol, _address)


def _matrix(context, builder, aryty, value):
    """(data as i8*, rows, columns, row stride in bytes, column stride in bytes)."""
    ary = context.make_array(aryty)(context, builder, value)
    rows, cols = cgutils.unpack_tuple(builder, ary.shape, 2)
    srow, scol = cgutils.unpack_tuple(builder, ary.strides, 2)
    return builder.bitcast(ary.data, ir.IntType(8).as_pointer()), rows, cols, srow, scol


def _max(builder, *values):
    best = values[0]
    for v in values[1:]:
        best = builder.select(builder.icmp_signed(">", v, best), v, best)
    return best


@intrinsic
def gemm_block(typingctx, a, b, out, ta, tb, r0, r1, c0, c1):
    """out[r0:r1, c0:c1] = op(a)[r0:r1] @ op(b)[:, c0:c1] in one gemm call, where op(x) is
    x, or x.T when its flag is set; each row of a, b and out is contiguous.  BLAS is
    column-major: a row-major out is out.T there, so the call computes
    out.T = op(b).T @ op(a).T, reading a row-major matrix as its transpose."""
    arrays = (a, b, out)
    if not all(isinstance(x, types.Array) and x.ndim == 2 for x in arrays) or \
            out.dtype not in _SYMBOLS or a.dtype != out.dtype or b.dtype != out.dtype:
        return None
    sig = types.none(a, b, out, ta, tb, r0, r1, c0, c1)

    def codegen(context, builder, sig, args):
        intp, i32, i8 = context.get_value_type(types.intp), ir.IntType(32), ir.IntType(8)
        flt = context.get_value_type(out.dtype)
        (pa, ar, ac, ars, acs), (pb, br, bc, brs, bcs), (po, _, oc, ors, ocs) = (
            _matrix(context, builder, t, v) for t, v in zip(sig.args[:3], args[:3]))
        fa, fb = (context.cast(builder, v, t, types.boolean) for v, t in zip(args[3:5], sig.args[3:5]))
        r0_, r1_, c0_, c1_ = (context.cast(builder, v, t, types.intp) for v, t in zip(args[5:], sig.args[5:]))
        item = ir.Constant(intp, out.dtype.bitwidth // 8)
        one = ir.Constant(intp, 1)

        def lead(row_stride, cols):  # BLAS's leading dimension of a row-major matrix
            return _max(builder, builder.sdiv(row_stride, item), cols, one)

        k = builder.select(fa, ar, ac)
        a_at = builder.gep(pa, [builder.mul(r0_, builder.select(fa, acs, ars))])
        b_at = builder.gep(pb, [builder.mul(c0_, builder.select(fb, brs, bcs))])
        o_at = builder.gep(po, [builder.add(builder.mul(r0_, ors), builder.mul(c0_, ocs))])
        rows, cols = builder.sub(r1_, r0_), builder.sub(c1_, c0_)
        zero = ir.Constant(intp, 0)
        work = builder.and_(builder.and_(builder.icmp_signed(">", rows, zero),
                                         builder.icmp_signed(">", cols, zero)),
                            builder.icmp_signed(">", k, zero))

        def slot(ty, value):
            ptr = cgutils.alloca_once(builder, ty)
            builder.store(value, ptr)
            return ptr

        with builder.if_then(work):
            n_char, t_char = ir.Constant(i8, ord("N")), ir.Constant(i8, ord("T"))
            p_flt = flt.as_pointer()
            fnty = ir.FunctionType(ir.VoidType(), [i8.as_pointer()] * 2 + [i32.as_pointer()] * 3
                                   + [p_flt, p_flt, i32.as_pointer(), p_flt, i32.as_pointer(),
                                      p_flt, p_flt, i32.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, _SYMBOLS[out.dtype])
            args32 = [slot(i32, builder.trunc(v, i32)) for v in (
                cols, rows, k, lead(brs, bc), lead(ars, ac), lead(ors, oc))]
            n, m, kk, ldb, lda, ldo = args32
            builder.call(fn, [
                slot(i8, builder.select(fb, t_char, n_char)),
                slot(i8, builder.select(fa, t_char, n_char)), n, m, kk,
                slot(flt, ir.Constant(flt, 1.0)), builder.bitcast(b_at, p_flt), ldb,
                builder.bitcast(a_at, p_flt), lda, slot(flt, ir.Constant(flt, 0.0)),
                builder.bitcast(o_at, p_flt), ldo])
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _unliteral(typingctx, x):
    """x typed as its plain type: a call with a constant flag (generated code writes True or
    False) would otherwise compile a parallel function once per constant."""
    return types.unliteral(x)(x), lambda context, builder, sig, args: args[0]


@numba.njit(cache=True, error_model="numpy", parallel=True)
def _products(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for float operands (op as in gemm_block): the batches in
    parallel when there are enough of them, else each product cut into PARTS blocks of rows
    (or columns, when there are more of them) when it is large enough to gain from it."""
    batch, m, n = out.shape
    k = a.shape[1] if ta else a.shape[2]
    if k == 0:
        out[:] = 0
    elif batch < PARTS and m * n * k < SPLIT_MACS:  # (no threads to start: a scan's step)
        for i in range(batch):
            gemm_block(a[i], b[i], out[i], ta, tb, 0, m, 0, n)
    else:
        parts = 1 if batch >= PARTS else PARTS
        by_rows = m >= n
        for w in numba.prange(batch * parts):
            i, p = w // parts, w % parts
            if by_rows:
                gemm_block(a[i], b[i], out[i], ta, tb, m * p // parts, m * (p + 1) // parts, 0, n)
            else:
                gemm_block(a[i], b[i], out[i], ta, tb, 0, m, n * p // parts, n * (p + 1) // parts)


# (the entries are inlined into their callers: a call per constant pair of flags costs no
# compile of its own)
@numba.njit(cache=True, error_model="numpy", inline="always")
def batched_dot(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for (batch, rows, columns) float arrays."""
    _products(a, b, out, _unliteral(ta), _unliteral(tb))


@numba.njit(cache=True, error_model="numpy", inline="always")
def dot(a, b, out, ta, tb):
    """out = op(a) @ op(b) for 2-D float operands."""
    _products(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape),
              out.reshape((1,) + out.shape), _unliteral(ta), _unliteral(tb))
