"""Matrix products through BLAS's gemm, called directly, split across threads: the code
emit_product writes, which product_runtime compiles once per machine and kernels call.

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

from .matvec_runtime import lanes, matvec_function

# Products of at most this many multiply-adds go to NumPy's OpenBLAS where it has one: a
# newer build whose small products are faster (a 16x128x128 product, once per step of an
# RNN, 8.9 against 15.6 us; 64x64x64 7.4 against 9.2), and which runs them on the calling
# thread (OpenBLAS threads a product only past 65536 * 4 multiply-adds), so NumPy's own
# thread count can stay the user's.
SMALL_MACS = 65536 * 4

# The gemm entries, read by compiled code at each call (so machine code cached on disk
# stays right whichever libraries a later process finds): for small (1) or other (0)
# products of float32 (0) or float64 (1), slot 2 * small + double holds the address and
# slot 4 + that the width in bits of its integer arguments (64 for NumPy's ILP64 build);
# slot 8 + double is 1 where the small entry is NumPy's OpenBLAS, which threads a large
# product itself (see THREADED).
_TABLE = (ctypes.c_void_p * 10)()
_SLOTS = len(_TABLE)
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
        _TABLE[8 + double] = int(small is not None)


_fill_table()
llvmlite.binding.add_symbol(_TABLE_SYMBOL, ctypes.addressof(_TABLE))


def _table(builder):
    table = builder.module.globals.get(_TABLE_SYMBOL)
    if table is None:  # (a declaration: LLVM finds the symbol registered above)
        table = ir.GlobalVariable(builder.module,
                                  ir.ArrayType(ir.IntType(8).as_pointer(), _SLOTS), _TABLE_SYMBOL)
    return table


def _table_slots(context, builder, dtype, rows, cols, k, threaded=None):
    """The gemm entry a product of rows x k x cols calls (see _TABLE): .address (i8*) and
    .width (intp). `threaded` (i1): NumPy's entry, whatever the size."""
    intp = context.get_value_type(types.intp)
    table = _table(builder)
    macs = builder.mul(builder.mul(rows, cols), k)
    small = builder.icmp_signed("<=", macs, ir.Constant(intp, SMALL_MACS))
    if threaded is not None:
        small = builder.or_(small, threaded)
    small = builder.zext(small, intp)
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


def float_matrices(*arrays, ndim=2) -> bool:
    """C-contiguous arrays of `ndim` dimensions and one float dtype (BLAS needs each row's
    elements adjacent)."""
    return all(isinstance(x, types.Array) and x.ndim == ndim and x.layout == "C" for x in arrays) \
        and arrays[-1].dtype in (types.float32, types.float64) \
        and all(x.dtype == arrays[-1].dtype for x in arrays)


def _threaded_entry(context, builder, dtype):
    """Whether this process's small gemm entry is NumPy's OpenBLAS (i1: see _TABLE)."""
    intp = context.get_value_type(types.intp)
    slot = builder.gep(_table(builder), [ir.Constant(intp, 0),
                                         ir.Constant(intp, 8 + int(dtype == types.float64))])
    return builder.icmp_unsigned("!=", builder.ptrtoint(builder.load(slot), intp),
                                 ir.Constant(intp, 0))


def _emit_block(context, builder, dtype, matrices, fa, fb, r0, r1, c0, c1, threaded=None):
    """out[r0:r1, c0:c1] = op(a)[r0:r1] @ op(b)[:, c0:c1] in one gemm call, where op(x) is x,
    or x.T when its flag (i1) is set; matrices: (a, b, out), each (data as i8*, rows, columns,
    row stride in bytes, column stride in bytes) with each row contiguous.  BLAS is
    column-major: a row-major out is out.T there, so the call computes
    out.T = op(b).T @ op(a).T, reading a row-major matrix as its transpose."""
    intp, i8 = context.get_value_type(types.intp), ir.IntType(8)
    flt = context.get_value_type(dtype)
    (pa, ar, ac, ars, acs), (pb, br, bc, brs, bcs), (po, _, oc, ors, ocs) = matrices
    item = ir.Constant(intp, dtype.bitwidth // 8)
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
        slots = _table_slots(context, builder, dtype, rows, cols, k, threaded)
        chars = [slot(i8, builder.select(f, ir.Constant(i8, ord("T")), ir.Constant(i8, ord("N"))))
                 for f in (fb, fa)]
        ints = (cols, rows, k, lead(brs, bc), lead(ars, ac), lead(ors, oc))
        floats = [slot(flt, ir.Constant(flt, v)) for v in (1.0, 0.0)]
        pointers = [builder.bitcast(p, flt.as_pointer()) for p in (b_at, a_at, o_at)]
        _call_gemm(builder, slots, chars, ints, floats, pointers, slot)


# A kernel that runs no parallel loops of its own hands a large product whole to NumPy's
# OpenBLAS, which runs it on its own threads; kernels with parallel loops cut it over Numba's
# pool (below). OpenBLAS's threads spin for a while after a call instead of sleeping, so the
# next call finds them at work, where Numba's pool wakes a sleeping thread, which on a
# virtual machine can wait for its core: measured on an MLP's gradient (two 256x784x512
# products a call), 2.4-4.9 against 4.0-8.6 ms a call while the machine was slow, and a
# 256x784x512 product 1.0 ms against 1.3 (2.0-2.3 while slow). Their spinning slows Numba's
# parallel loops run right after (within ~0.25 s) by up to twice, so a kernel with parallel
# loops keeps Numba's threads for its products; and with both cores busy with other work a
# call can take 64 ms (16 at most for the cut over Numba's pool).
THREADED = True

# ---------------------------------------------------------------- blocks on Numba's pool
# A product (a 2-D one is a batch of one) is a job of blocks: batch i's output cut into
# `parts` blocks of rows (or columns, when there are more of them), block j = i * parts + p.
# One worker function per dtype (in product_runtime's library) runs a range of blocks, each
# one gemm call on the operands at an offset (no copies): on the calling thread, or past
# SPLIT_MACS multiply-adds spread over Numba's thread pool through its threading layer's
# `parallel_for`, the entry its parallel loops call. No parallel Numba function is compiled
# for it (that cost 0.9 s of every cold compile with a product), no threads are started per
# call (that cost 50-80 us a call).
# On 2 cores, split over the pool against one thread: 64x128x128 (1M) 22-25 against 32 us,
# 128x256x128 66-69 against 107, 256x256x256 214-219 against 385, 256x784x512 1.19-1.26 ms
# against 2.36 (threads started per call: 150-174 us for 128x256x128).
SPLIT_MACS = 1 << 20
# The job's fields, intp each (pointers as integers): operands a, b, out as (data, batch
# stride, rows, columns, row stride, column stride), strides in bytes; then the flags and
# the cut.
_JOB = ("pa", "ab", "ar", "ac", "ars", "acs", "pb", "bb", "br", "bc", "brs", "bcs",
        "po", "ob", "or", "oc", "ors", "ocs", "fa", "fb", "parts", "by_rows")
_FIELD = {name: k for k, name in enumerate(_JOB)}
OPERAND_FIELDS = _JOB[:18]  # (what a kernel passes the compiled product: product_runtime)


def _launch_pool() -> bool:
    """Start Numba's thread pool (which registers `numba_parallel_for` and `get_num_threads`
    with LLVM); False where no threading layer loads (products then run on the caller)."""
    try:
        numba.get_num_threads()
        return True
    except (RuntimeError, ValueError, ImportError, OSError):
        return False


# Started now, not when a kernel first compiles: the products' machine code (product_runtime,
# maybe read from the disk cache) calls the pool's entry by name, and nothing else would have
# started it in a new process (test_numba_blas checks this in two processes). Generated code
# calls a product only outside parallel loops: the workqueue layer (a fallback where TBB is
# missing) aborts on a parallel region inside another.
POOL = _launch_pool()


def _gufunc_type(context):
    """The pool's task signature: void(char **args, intp *dims, intp *steps, void *data)."""
    intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
    return ir.FunctionType(ir.VoidType(), [i8p.as_pointer(), intp.as_pointer(),
                                           intp.as_pointer(), i8p])


def _worker(context, module, dtype):
    """`astjax_gemm_blocks_<dtype>`: blocks args[1] .. args[1] + dims[0] of the job at args[0]
    (the pool hands each thread a range as args[1]'s offset, its step being 1)."""
    name = f"astjax_gemm_blocks_{dtype}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    intp = context.get_value_type(types.intp)
    fn = ir.Function(module, _gufunc_type(context), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")  # (one copy, called by every product of its dtype)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    args, dims = fn.args[0], fn.args[1]
    job = builder.bitcast(builder.load(args), intp.as_pointer())
    first = builder.ptrtoint(builder.load(builder.gep(args, [ir.Constant(intp, 1)])), intp)
    count = builder.load(dims)
    fields = {name: builder.load(builder.gep(job, [ir.Constant(intp, k)]))
              for name, k in _FIELD.items()}
    with cgutils.for_range(builder, count) as loop:
        _run_block(context, builder, dtype, fields, builder.add(first, loop.index))
    builder.ret_void()
    return fn


def _run_block(context, builder, dtype, f, j):
    """Block j of the job whose fields are `f`."""
    intp = context.get_value_type(types.intp)
    zero, one = ir.Constant(intp, 0), ir.Constant(intp, 1)
    batch, p = builder.sdiv(j, f["parts"]), builder.srem(j, f["parts"])
    by_rows = builder.icmp_signed("!=", f["by_rows"], zero)
    total = builder.select(by_rows, f["or"], f["oc"])
    lo = builder.sdiv(builder.mul(total, p), f["parts"])
    hi = builder.sdiv(builder.mul(total, builder.add(p, one)), f["parts"])

    flags = [builder.icmp_signed("!=", f[name], zero) for name in ("fa", "fb")]
    _emit_block(context, builder, dtype, _matrices(builder, f, batch), *flags,
                builder.select(by_rows, lo, zero), builder.select(by_rows, hi, f["or"]),
                builder.select(by_rows, zero, lo), builder.select(by_rows, f["oc"], hi))


def _matrices(builder, f, batch=None) -> list:
    """(a, b, out) of batch `batch` (None: the only one) of the job whose fields are `f`, as
    _emit_block takes them."""
    i8p = ir.IntType(8).as_pointer()

    def matrix(x):
        data = f["p" + x] if batch is None else builder.add(f["p" + x],
                                                             builder.mul(batch, f[x + "b"]))
        return (builder.inttoptr(data, i8p), f[x + "r"], f[x + "c"], f[x + "rs"], f[x + "cs"])
    return [matrix(x) for x in "abo"]


def operand(context, builder, aryty, value):
    """(data, batch stride, rows, columns, row stride, column stride) as intp values, and the
    batch count: a 2-D array is a batch of one."""
    intp = context.get_value_type(types.intp)
    ary = context.make_array(aryty)(context, builder, value)
    shape = cgutils.unpack_tuple(builder, ary.shape, aryty.ndim)
    strides = cgutils.unpack_tuple(builder, ary.strides, aryty.ndim)
    batch = (strides[0],) if aryty.ndim == 3 else (ir.Constant(intp, 0),)
    fields = (builder.ptrtoint(ary.data, intp),) + batch + tuple(shape[-2:]) + tuple(strides[-2:])
    return fields, shape[0] if aryty.ndim == 3 else ir.Constant(intp, 1)


def _job_slots(context, builder):
    """The stack slots of a product's call (the job, the pool's args, dims and steps), one set
    per function: its products run one after another, so they share it."""
    shared = getattr(builder.function, "_astjax_job_slots", None)
    if shared is None:
        intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
        shared = builder.function._astjax_job_slots = (
            cgutils.alloca_once(builder, intp, size=len(_JOB)),
            cgutils.alloca_once(builder, i8p, size=2),
            cgutils.alloca_once(builder, intp, size=1),
            cgutils.alloca_once(builder, intp, size=2))
    return shared


def _thread_count(builder, intp):
    """Numba's thread count where the product runs (`numba.set_num_threads` included)."""
    get = cgutils.get_or_insert_function(builder.module, ir.FunctionType(intp, []),
                                         "get_num_threads")  # (declared as Numba declares it)
    count = builder.sext(builder.trunc(builder.call(get, []), ir.IntType(32)), intp)
    return _max(builder, count, ir.Constant(intp, 1))


def emit_product(context, builder, dtype, fields, batches, fa, fb, own_threads):
    """The code of a product whose operands' fields (OPERAND_FIELDS, intp values) are
    `fields`: zeros for a sum of nothing; below SPLIT_MACS a matrix times a vector through
    matvec_runtime; where `own_threads` (i1: the kernel runs no parallel loops of its own)
    and NumPy's OpenBLAS is here, a large product of 2-D arrays as one call of its gemm,
    which runs on OpenBLAS's own threads (THREADED); else blocks of a job, run by the
    worker on this thread or over the pool."""
    intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
    k = builder.select(fa, fields["ar"], fields["ac"])
    zero = ir.Constant(intp, 0)
    elements = builder.mul(batches, builder.mul(fields["or"], fields["oc"]))
    with builder.if_else(builder.icmp_signed("==", k, zero)) as (empty, full):
        with empty:  # a sum of nothing: zeros (gemm would not be called)
            size = builder.mul(elements, ir.Constant(intp, dtype.bitwidth // 8))
            cgutils.memset(builder, builder.inttoptr(fields["po"], i8p), size, 0)
        with full:
            macs = builder.mul(elements, k)
            gemm = functools.partial(_emit_own_threads, context, builder, dtype, fields,
                                     batches, macs, fa, fb, own_threads)
            _emit_matvec_or(context, builder, dtype, fields, batches, fa, fb, macs, gemm)


def _emit_matvec_or(context, builder, dtype, f, batches, fa, fb, macs, otherwise):
    """Matrices times vectors whose sums run along the matrices' rows, through
    matvec_runtime (gemm sums one row at a time, twice as slow), one call per batch: an
    output of one column, op(a) = a the matrix; or of one row, op(b) = b.T the matrix
    (`v @ m.T`, as attention's single query against its keys). Taken with contiguous
    vectors, at least a block of rows each at least a vector long, and below SPLIT_MACS in
    all (one thread either way); else `otherwise()`."""
    intp = context.get_value_type(types.intp)
    item, n = ir.Constant(intp, dtype.bitwidth // 8), ir.Constant(intp, lanes(dtype))
    one = ir.Constant(intp, 1)

    def all_of(*conditions):
        return functools.reduce(builder.and_, conditions)

    def at_least(x, y):
        return builder.icmp_signed(">=", x, y)

    def equal(x, y):
        return builder.icmp_signed("==", x, y)

    column = all_of(builder.not_(fa), equal(f["oc"], one),
                    equal(builder.select(fb, f["bcs"], f["brs"]), item),
                    at_least(f["ar"], n), at_least(f["ac"], n))
    row = all_of(fb, equal(f["or"], one), equal(builder.select(fa, f["ars"], f["acs"]), item),
                 at_least(f["br"], n), at_least(f["bc"], n))
    small = builder.icmp_signed("<", macs, ir.Constant(intp, SPLIT_MACS))
    with builder.if_else(builder.and_(small, builder.or_(column, row))) as (ours, theirs):
        with ours:
            def pick(x, y):
                return builder.select(column, f[x], f[y])
            matrix, vector = (pick("pa", "pb"), pick("ab", "bb")), (pick("pb", "pa"),
                                                                    pick("bb", "ab"))
            shape = [pick(x, y) for x, y in (("ar", "br"), ("ac", "bc"), ("ars", "brs"))]
            out_stride = pick("ors", "ocs")
            i8p = ir.IntType(8).as_pointer()
            function = matvec_function(context, builder.module, dtype)
            with cgutils.for_range(builder, batches) as batch:
                def at(data_and_stride):
                    data, stride = data_and_stride
                    return builder.inttoptr(builder.add(data, builder.mul(batch.index, stride)),
                                            i8p)
                builder.call(function, [at(matrix)] + shape + [at(vector),
                                                               at((f["po"], f["ob"])),
                                                               out_stride])
        with theirs:
            otherwise()


def _emit_own_threads(context, builder, dtype, fields, batches, macs, fa, fb, own_threads):
    """A large product as one call of NumPy's gemm where `own_threads` holds and NumPy's
    OpenBLAS is here, else as a job (the caller's `full` branch of _emit_product)."""
    intp = context.get_value_type(types.intp)
    zero = ir.Constant(intp, 0)
    threaded = builder.and_(
        builder.and_(own_threads, _threaded_entry(context, builder, dtype)),
        builder.icmp_signed(">=", macs, ir.Constant(intp, SPLIT_MACS)))
    with builder.if_else(threaded) as (blas, ours):
        with blas:
            _emit_block(context, builder, dtype, _matrices(builder, fields), fa, fb, zero,
                        fields["or"], zero, fields["oc"], threaded=ir.Constant(ir.IntType(1), 1))
        with ours:
            _emit_job(context, builder, dtype, fields, batches, macs, fa, fb)


def _emit_job(context, builder, dtype, fields, batches, macs, fa, fb):
    """The product as a job of blocks, on this thread or over Numba's pool (see above)."""
    intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
    zero, one = ir.Constant(intp, 0), ir.Constant(intp, 1)
    fields = dict(fields)
    threads = _thread_count(builder, intp) if POOL else one
    split = builder.and_(builder.icmp_signed(">=", macs, ir.Constant(intp, SPLIT_MACS)),
                         builder.icmp_signed(">", threads, one))
    # fewer batches than threads: each product is cut in as many blocks as threads
    parts = builder.select(builder.and_(split, builder.icmp_signed("<", batches, threads)),
                           threads, one)
    fields.update(fa=builder.zext(fa, intp), fb=builder.zext(fb, intp), parts=parts,
                  by_rows=builder.zext(builder.icmp_signed(">=", fields["or"],
                                                           fields["oc"]), intp))
    job, args, dims, steps = _job_slots(context, builder)
    for name, value in fields.items():
        builder.store(value, builder.gep(job, [ir.Constant(intp, _FIELD[name])]))
    builder.store(builder.bitcast(job, i8p), args)
    builder.store(ir.Constant(i8p, None), builder.gep(args, [one]))
    builder.store(builder.mul(batches, parts), dims)
    builder.store(zero, steps)
    builder.store(one, builder.gep(steps, [one]))
    worker = _worker(context, builder.module, dtype)
    call = [args, dims, steps, ir.Constant(i8p, None)]
    if not POOL:  # (no pool entry to declare)
        builder.call(worker, call)
        return
    with builder.if_else(split) as (pooled, here):
        with pooled:
            pool = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
                ir.VoidType(), [i8p] * 5 + [intp] * 3), "numba_parallel_for")
            builder.call(pool, [builder.bitcast(worker, i8p)]
                         + [builder.bitcast(v, i8p) for v in call]
                         + [zero, ir.Constant(intp, 2), threads])
        with here:
            builder.call(worker, call)
