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


def _parts_value(builder, intp):
    zero, eight = ir.Constant(intp, 0), ir.Constant(intp, 8)
    return builder.ptrtoint(builder.load(builder.gep(_table(builder), [zero, eight])), intp)


@intrinsic
def _parts(typingctx):
    """Blocks per large product (_TABLE's slot 8)."""
    def codegen(context, builder, sig, args):
        return _parts_value(builder, context.get_value_type(types.intp))
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


def _float_matrices(*arrays) -> bool:
    """2-D C-contiguous arrays of one float dtype (BLAS needs each row's elements adjacent)."""
    return all(isinstance(x, types.Array) and x.ndim == 2 and x.layout == "C" for x in arrays) \
        and arrays[-1].dtype in (types.float32, types.float64) \
        and all(x.dtype == arrays[-1].dtype for x in arrays)


def _emit_block(context, builder, arrays, values, fa, fb, r0, r1, c0, c1):
    """out[r0:r1, c0:c1] = op(a)[r0:r1] @ op(b)[:, c0:c1] in one gemm call (see gemm_block);
    arrays: the Numba types of (a, b, out), values: their LLVM values, the rest LLVM values
    (flags i1, bounds intp)."""
    out = arrays[2]
    intp, i8 = context.get_value_type(types.intp), ir.IntType(8)
    flt = context.get_value_type(out.dtype)
    (pa, ar, ac, ars, acs), (pb, br, bc, brs, bcs), (po, _, oc, ors, ocs) = (
        _matrix(context, builder, t, v) for t, v in zip(arrays, values))
    item = ir.Constant(intp, out.dtype.bitwidth // 8)
    one = ir.Constant(intp, 1)

    def lead(row_stride, cols):  # BLAS's leading dimension of a row-major matrix
        return _max(builder, builder.sdiv(row_stride, item), cols, one)

    k = builder.select(fa, ar, ac)
    a_at = builder.gep(pa, [builder.mul(r0, builder.select(fa, acs, ars))])
    b_at = builder.gep(pb, [builder.mul(c0, builder.select(fb, brs, bcs))])
    o_at = builder.gep(po, [builder.add(builder.mul(r0, ors), builder.mul(c0, ocs))])
    rows, cols = builder.sub(r1, r0), builder.sub(c1, c0)
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


def _flags(context, builder, sig, args):
    return [context.cast(builder, v, t, types.boolean) for v, t in zip(args, sig)]


@intrinsic
def gemm_block(typingctx, a, b, out, ta, tb, r0, r1, c0, c1):
    """out[r0:r1, c0:c1] = op(a)[r0:r1] @ op(b)[:, c0:c1] in one gemm call, where op(x) is
    x, or x.T when its flag is set; each row of a, b and out is contiguous.  BLAS is
    column-major: a row-major out is out.T there, so the call computes
    out.T = op(b).T @ op(a).T, reading a row-major matrix as its transpose."""
    if not _float_matrices(a, b, out):
        return None
    sig = types.none(a, b, out, ta, tb, r0, r1, c0, c1)

    def codegen(context, builder, sig, args):
        fa, fb = _flags(context, builder, sig.args[3:5], args[3:5])
        bounds = [context.cast(builder, v, t, types.intp) for v, t in zip(args[5:], sig.args[5:])]
        _emit_block(context, builder, sig.args[:3], args[:3], fa, fb, *bounds)
        return context.get_dummy_value()
    return sig, codegen


# ---------------------------------------------------------------- threads of our own
# A large product is cut into blocks run on threads started for the call (POSIX threads, the
# caller running the first block): a parallel Numba function doing the same cost 0.9 s of
# compile in every new cache (Numba's parallel-loop machinery).  Starting and joining the
# threads costs 50-80 us a call here (Numba's pool, already running, took ~20), so a product
# is split only past THREAD_MACS (~0.8 ms on one thread): 128x256x128 took 67-94 us split
# by the pool, 110-170 split by new threads, ~100 on one; 256x784x512 1.19-1.30 ms, 1.24-1.42
# and ~2.4.
THREAD_MACS = 1 << 25
MAX_PARTS = 64
_PTHREAD = {"astjax_pthread_create": "pthread_create", "astjax_pthread_join": "pthread_join"}


def _register_threads() -> bool:
    try:
        libc = ctypes.CDLL(None)
        for ours, name in _PTHREAD.items():
            llvmlite.binding.add_symbol(ours, ctypes.cast(getattr(libc, name),
                                                          ctypes.c_void_p).value)
        return True
    except (OSError, AttributeError):  # (no POSIX threads: large products run on one thread)
        return False


THREADS = _register_threads()


def _block_args_type(context, arrays):
    """What a thread is handed: pointers to the three array structs, the flags, the bounds."""
    intp = context.get_value_type(types.intp)
    structs = [context.get_value_type(t).as_pointer() for t in arrays]
    return ir.LiteralStructType(structs + [ir.IntType(1)] * 2 + [intp] * 4)


def _worker(context, module, arrays):
    """`i8* worker(i8* args)`: one block of a product, as a thread's start routine."""
    name = f"astjax_gemm_block_{arrays[2].dtype}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    i8p = ir.IntType(8).as_pointer()
    fn = ir.Function(module, ir.FunctionType(i8p, [i8p]), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")  # (one copy, called by every product of the kernel)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    packed = builder.bitcast(fn.args[0], _block_args_type(context, arrays).as_pointer())

    def field(k):
        return builder.load(builder.gep(packed, [ir.Constant(ir.IntType(32), 0),
                                                 ir.Constant(ir.IntType(32), k)]))
    values = [builder.load(field(k)) for k in range(3)]
    _emit_block(context, builder, arrays, values, field(3), field(4), *[field(k) for k in range(5, 9)])
    builder.ret(ir.Constant(i8p, None))
    return fn


def _block_slots(context, builder, arrays):
    """The stack slots of a product's blocks (arguments, thread ids, started flags), one set
    per function and dtype: its products run one after another, so they share it (a slot set
    per product made a kernel of many products hold kilobytes of stack for each)."""
    shared = builder.function.__dict__.setdefault("_astjax_block_slots", {})
    key = str(arrays[2].dtype)
    if key not in shared:
        shared[key] = (cgutils.alloca_once(builder, _block_args_type(context, arrays), size=MAX_PARTS),
                       cgutils.alloca_once(builder, ir.IntType(64), size=MAX_PARTS),
                       cgutils.alloca_once(builder, ir.IntType(1), size=MAX_PARTS))
    return shared[key]


def _emit_blocks(context, builder, arrays, values, fa, fb, m, n, parts):
    """The product in `parts` blocks of rows (or columns, when there are more of them): the
    caller runs block 0, a thread each the others (a block whose thread did not start runs on
    the caller after the first).  Each block is a call of the worker function, so a kernel
    holds one copy of the gemm call's code per dtype, not one per product."""
    intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    packs, tids, started = _block_slots(context, builder, arrays)
    structs = [cgutils.alloca_once_value(builder, v) for v in values]
    worker = _worker(context, builder.module, arrays)
    by_rows = builder.icmp_signed(">=", m, n)
    total = builder.select(by_rows, m, n)
    zero = ir.Constant(intp, 0)
    with cgutils.for_range(builder, parts) as loop:
        p = loop.index
        lo = builder.sdiv(builder.mul(total, p), parts)
        hi = builder.sdiv(builder.mul(total, builder.add(p, ir.Constant(intp, 1))), parts)
        fields = structs + [fa, fb, builder.select(by_rows, lo, zero), builder.select(by_rows, hi, m),
                            builder.select(by_rows, zero, lo), builder.select(by_rows, n, hi)]
        pack = builder.gep(packs, [p])
        for k, value in enumerate(fields):
            builder.store(value, builder.gep(pack, [ir.Constant(i32, 0), ir.Constant(i32, k)]))

    def arg(p):
        return builder.bitcast(builder.gep(packs, [p]), i8p)

    if not THREADS:  # (parts is 1: no thread functions to declare)
        builder.call(worker, [arg(zero)])
        return
    create = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        i32, [i8p, i8p, worker.type, i8p]), "astjax_pthread_create")
    join = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
        i32, [ir.IntType(64), i8p]), "astjax_pthread_join")
    one = ir.Constant(intp, 1)
    with cgutils.for_range(builder, parts, start=one) as loop:
        p = loop.index
        rc = builder.call(create, [builder.bitcast(builder.gep(tids, [p]), i8p),
                                   ir.Constant(i8p, None), worker, arg(p)])
        builder.store(builder.icmp_signed("==", rc, ir.Constant(i32, 0)), builder.gep(started, [p]))
    builder.call(worker, [arg(zero)])
    with cgutils.for_range(builder, parts, start=one) as loop:
        p = loop.index
        with builder.if_else(builder.load(builder.gep(started, [p]))) as (joined, inline):
            with joined:
                builder.call(join, [builder.load(builder.gep(tids, [p])), ir.Constant(i8p, None)])
            with inline:
                builder.call(worker, [arg(p)])


@intrinsic
def dot(typingctx, a, b, out, ta, tb):
    """out = op(a) @ op(b) for 2-D float operands (op as in gemm_block): one gemm call, or
    past THREAD_MACS multiply-adds one block per thread (the table's slot 8, at most
    MAX_PARTS)."""
    if not _float_matrices(a, b, out):
        return None
    sig = types.none(a, b, out, ta, tb)

    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        fa, fb = _flags(context, builder, sig.args[3:5], args[3:5])
        arrays, values = sig.args[:3], args[:3]
        _, ar, ac, _, _ = _matrix(context, builder, arrays[0], values[0])
        po, m, n, _, _ = _matrix(context, builder, arrays[2], values[2])
        k = builder.select(fa, ar, ac)
        zero = ir.Constant(intp, 0)
        with builder.if_else(builder.icmp_signed("==", k, zero)) as (empty, full):
            with empty:  # a sum of nothing: zeros (gemm would not be called)
                size = builder.mul(builder.mul(m, n), ir.Constant(intp, arrays[2].dtype.bitwidth // 8))
                cgutils.memset(builder, po, size, 0)
            with full:
                macs = builder.mul(builder.mul(m, n), k)
                parts = _max(builder, _parts_value(builder, intp), ir.Constant(intp, 1))
                parts = builder.select(builder.icmp_signed(">", parts, ir.Constant(intp, MAX_PARTS)),
                                       ir.Constant(intp, MAX_PARTS), parts)
                split = builder.and_(builder.icmp_signed(">=", macs, ir.Constant(intp, THREAD_MACS)),
                                     ir.Constant(ir.IntType(1), int(THREADS)))
                parts = builder.select(split, parts, ir.Constant(intp, 1))
                _emit_blocks(context, builder, arrays, values, fa, fb, m, n, parts)
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


# (called, not inlined: inlined, its reshapes cost every kernel's compile again; generated
# code passes the flags as np.bool_, so it compiles once per dtype and machine, not once per
# pair of constant flags)
@numba.njit(cache=True, error_model="numpy")
def batched_dot(a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for (batch, rows, columns) float arrays."""
    _products(a, b, out, _unliteral(ta), _unliteral(tb))
