"""Matrix products through BLAS's gemm, called directly, split across threads.

Numba's `np.dot` calls one single-threaded gemm (see the backend on OpenBLAS's threads) and
compiles an internal function per pair of operand layouts (about 0.6 s each: most of a cold
compile of an MLP's gradient).  Here each operand is a C-contiguous array passed with a flag
saying whether the product reads it transposed, so one function per dtype serves every
layout, and a large product is cut into one block of output rows (or columns) per thread:
each block is one gemm call on the same operands at an offset, no copies.  On 2 cores a
256x784 @ 784x512 product took 2.4 ms as one call and 1.25 ms split.

gemm is OpenBLAS's `?gemm_` (Fortran: every argument by pointer): SciPy's, run on one
thread, and for small products NumPy's (see SMALL_MACS).  Their addresses sit in a table
registered with LLVM under a name of ours at import, so compiled code reads them by name at
each call and stays cacheable.  They are read from the libraries themselves: Numba's own
wrapper resolves gemm on its first call by taking the GIL, which a parallel loop's worker
cannot do while the caller holds it.
"""
import ctypes
import functools
import glob
import os
from types import SimpleNamespace

import llvmlite.binding
import numba
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

# Multiply-adds below which a product stays one call (~50 us on one thread): under it, the
# cost of starting the threads is not repaid.
SPLIT_MACS = 1 << 22

# Products of at most this many multiply-adds go to NumPy's OpenBLAS where it has one: a
# newer build whose small products are faster (a 16x128x128 product, once per step of an
# RNN, 8.9 against 15.6 us; 64x64x64 7.4 against 9.2), and which runs them on the calling
# thread (OpenBLAS threads a product only past 65536 * 4 multiply-adds), so NumPy's own
# thread count can stay the user's.
SMALL_MACS = 65536 * 4

# The gemm entries, read by compiled code at each call (so machine code cached on disk
# stays right whichever libraries a later process finds): for small (1) or other (0)
# products of float32 (0) or float64 (1), slot 2 * small + double holds the address and
# slot 4 + that the width in bits of its integer arguments (64 for NumPy's ILP64 build).
# Slot 8: blocks per large product, Numba's thread count when this module was imported (read
# at run time too, so machine code cached on a 2-core machine splits in 16 on a 16-core one;
# a process that lowers its count later runs the blocks in turn).
_TABLE = (ctypes.c_void_p * 9)()
_TABLE_SYMBOL = "astjax_gemm_table"


@functools.lru_cache(maxsize=None)
def openblas_libraries(package: str = "scipy") -> tuple:
    """A wheel's bundled OpenBLAS (`scipy.libs`, `numpy.libs`), loaded once (the backend
    also sets SciPy's to one thread); empty for other builds."""
    module = __import__(package)
    folder = os.path.join(os.path.dirname(os.path.dirname(module.__file__)), package + ".libs")
    return tuple(ctypes.CDLL(path)
                 for path in sorted(glob.glob(os.path.join(folder, "*openblas*.so*"))))


def _address(libs, names):
    for lib in libs:
        for name in names:
            if hasattr(lib, name):
                return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    return None


def _fill_table() -> None:
    """SciPy's single-threaded gemm for products in general (its bundled library, else
    scipy.linalg.cython_blas: a slower import); NumPy's ILP64 one for small products where
    NumPy bundles OpenBLAS, else SciPy's again."""
    scipy_libs, numpy_libs = openblas_libraries("scipy"), openblas_libraries("numpy")
    for double, kind in ((0, "s"), (1, "d")):
        general = _address(scipy_libs, (f"scipy_{kind}gemm_", f"{kind}gemm_"))
        if general is None:
            from numba.core.extending import get_cython_function_address
            general = get_cython_function_address("scipy.linalg.cython_blas", f"{kind}gemm")
        small = _address(numpy_libs, (f"scipy_{kind}gemm_64_", f"{kind}gemm_64_"))
        _TABLE[double], _TABLE[4 + double] = general, 32
        _TABLE[2 + double], _TABLE[6 + double] = (small, 64) if small else (general, 32)
    _TABLE[8] = max(1, numba.config.NUMBA_NUM_THREADS)


_fill_table()
llvmlite.binding.add_symbol(_TABLE_SYMBOL, ctypes.addressof(_TABLE))


def _matrix(context, builder, aryty, value):
    """(data as i8*, rows, columns, row stride in bytes, column stride in bytes)."""
    ary = context.make_array(aryty)(context, builder, value)
    rows, cols = cgutils.unpack_tuple(builder, ary.shape, 2)
    srow, scol = cgutils.unpack_tuple(builder, ary.strides, 2)
    return builder.bitcast(ary.data, ir.IntType(8).as_pointer()), rows, cols, srow, scol


def _table(builder):
    table = builder.module.globals.get(_TABLE_SYMBOL)
    if table is None:  # (a declaration: LLVM finds the symbol registered above)
        table = ir.GlobalVariable(builder.module, ir.ArrayType(ir.IntType(8).as_pointer(), 9),
                                  _TABLE_SYMBOL)
    return table


@intrinsic
def _parts(typingctx):
    """Blocks per large product (_TABLE's slot 8)."""
    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        zero, eight = ir.Constant(intp, 0), ir.Constant(intp, 8)
        return builder.ptrtoint(builder.load(builder.gep(_table(builder), [zero, eight])), intp)
    return types.intp(), codegen


def _table_slots(context, builder, dtype, rows, cols, k):
    """The gemm entry a product of rows x k x cols calls (see _TABLE): .address (i8*) and
    .width (intp)."""
    intp = context.get_value_type(types.intp)
    table = _table(builder)
    macs = builder.mul(builder.mul(rows, cols), k)
    small = builder.zext(builder.icmp_signed("<=", macs, ir.Constant(intp, SMALL_MACS)), intp)
    index = builder.add(builder.mul(small, ir.Constant(intp, 2)),
                        ir.Constant(intp, int(dtype == types.float64)))
    zero = ir.Constant(intp, 0)
    address = builder.load(builder.gep(table, [zero, index]))
    width_slot = builder.gep(table, [zero, builder.add(index, ir.Constant(intp, 4))])
    return SimpleNamespace(address=address, width=builder.ptrtoint(builder.load(width_slot), intp))


def _max(builder, *values):
    best = values[0]
    for v in values[1:]:
        best = builder.select(builder.icmp_signed(">", v, best), v, best)
    return best


def _call_gemm(builder, entry, chars, ints, floats, pointers, slot):
    """Call the gemm entry with its integer arguments (intp values) as 64- or 32-bit ints,
    whichever the entry's width says."""
    i8, flt = ir.IntType(8), floats[0].type.pointee
    wide = builder.icmp_unsigned("==", entry.width, ir.Constant(entry.width.type, 64))
    with builder.if_else(wide) as (ilp64, lp64):
        for block, it in ((ilp64, ir.IntType(64)), (lp64, ir.IntType(32))):
            with block:
                n, m, k, ldb, lda, ldo = (slot(it, builder.trunc(v, it) if it.width < v.type.width
                                               else v) for v in ints)
                pf, pi = flt.as_pointer(), it.as_pointer()
                fnty = ir.FunctionType(ir.VoidType(), [i8.as_pointer()] * 2 + [pi] * 3
                                       + [pf, pf, pi, pf, pi, pf, pf, pi])
                builder.call(builder.bitcast(entry.address, fnty.as_pointer()),
                             [chars[0], chars[1], n, m, k, floats[0], pointers[0], ldb,
                              pointers[1], lda, floats[1], pointers[2], ldo])


@intrinsic
def gemm_block(typingctx, a, b, out, ta, tb, r0, r1, c0, c1):
    """out[r0:r1, c0:c1] = op(a)[r0:r1] @ op(b)[:, c0:c1] in one gemm call, where op(x) is
    x, or x.T when its flag is set; each row of a, b and out is contiguous.  BLAS is
    column-major: a row-major out is out.T there, so the call computes
    out.T = op(b).T @ op(a).T, reading a row-major matrix as its transpose."""
    arrays = (a, b, out)  # (C-contiguous: BLAS needs each row's elements adjacent)
    if not all(isinstance(x, types.Array) and x.ndim == 2 and x.layout == "C" for x in arrays) \
            or out.dtype not in (types.float32, types.float64) or a.dtype != out.dtype \
            or b.dtype != out.dtype:
        return None
    sig = types.none(a, b, out, ta, tb, r0, r1, c0, c1)

    def codegen(context, builder, sig, args):
        intp, i8 = context.get_value_type(types.intp), ir.IntType(8)
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
            slots = _table_slots(context, builder, out.dtype, rows, cols, k)
            chars = [slot(i8, builder.select(f, ir.Constant(i8, ord("T")), ir.Constant(i8, ord("N"))))
                     for f in (fb, fa)]
            ints = (cols, rows, k, lead(brs, bc), lead(ars, ac), lead(ors, oc))
            floats = [slot(flt, ir.Constant(flt, v)) for v in (1.0, 0.0)]
            pointers = [builder.bitcast(p, flt.as_pointer()) for p in (b_at, a_at, o_at)]
            _call_gemm(builder, slots, chars, ints, floats, pointers, slot)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _unliteral(typingctx, x):
    """x typed as its plain type: a call with a constant flag (generated code writes True or
    False) would otherwise compile a parallel function once per constant."""
    return types.unliteral(x)(x), lambda context, builder, sig, args: args[0]


# Start Numba's thread pool now (asking for its size starts it). A kernel that is not
# parallel itself but calls _products links in its machine code; when _products came from
# Numba's disk cache, the kernel's own cached entry does not record that the pool must be
# started before it runs, so a new process that loads that kernel first would call the
# pool's entry point at address 0 (test_numba_blas checks this in three processes).
numba.get_num_threads()


@numba.njit(cache=True, error_model="numpy", parallel=True)
def _products(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for float operands (op as in gemm_block): the batches in
    parallel when there are enough of them, else each product cut into _parts() blocks of rows
    (or columns, when there are more of them) when it is large enough to gain from it."""
    batch, m, n = out.shape
    k = a.shape[1] if ta else a.shape[2]
    threads = _parts()
    if k == 0:
        out[:] = 0
    elif batch < threads and m * n * k < SPLIT_MACS:  # (no threads to start: a scan's step)
        for i in range(batch):
            gemm_block(a[i], b[i], out[i], ta, tb, 0, m, 0, n)
    else:
        parts = 1 if batch >= threads else threads
        by_rows = m >= n
        for w in numba.prange(batch * parts):
            i, p = w // parts, w % parts
            if by_rows:
                gemm_block(a[i], b[i], out[i], ta, tb, m * p // parts, m * (p + 1) // parts, 0, n)
            else:
                gemm_block(a[i], b[i], out[i], ta, tb, 0, m, n * p // parts, n * (p + 1) // parts)


# (the entries are called, not inlined: inlined, their reshapes cost every kernel's compile
# again (a kernel of 23 products compiled in 8.7-9.2 s, against 11.1-11.8 s inlined);
# generated code passes the flags as np.bool_, so an entry compiles once per dtype and
# machine, not once per pair of constant flags)
@numba.njit(cache=True, error_model="numpy")
def batched_dot(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for (batch, rows, columns) float arrays."""
    _products(a, b, out, _unliteral(ta), _unliteral(tb))


@numba.njit(cache=True, error_model="numpy")
def dot(a, b, out, ta, tb):
    """out = op(a) @ op(b) for 2-D float operands."""
    _products(a.reshape((1,) + a.shape), b.reshape((1,) + b.shape),
              out.reshape((1,) + out.shape), _unliteral(ta), _unliteral(tb))
