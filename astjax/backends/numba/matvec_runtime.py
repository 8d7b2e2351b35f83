"""Matrix-vector products whose sums run along the matrix's rows, in vector code.

out[r] = sum_k m[r, k] * v[k] is a dot product per row: each row's sum ends in a horizontal
add, which costs as much as the row's multiply-adds when rows are short. gemm called with
one column does exactly that, one row at a time: a 512x32 float32 matrix times a vector took
1.8 us, where the transposed product (v @ m, a scaled row added per row) took 0.9. Here a
block of rows as many as a vector's lanes is summed at once: each row's products collect in
its own vector, and a tree of shuffles folds the block's vectors into one whose lane i is row
i's sum (log2(lanes) levels, half the lanes added at each), so the horizontal adds are shared
by the block. Measured on the 512x32 product with an aligned matrix: 1.0 us (AVX-512).

The code is one internal function per dtype, written with llvmlite, in the products' library
(product_runtime), compiled once per machine.
"""
import functools

import llvmlite.binding
from llvmlite import ir
from numba.core import cgutils, config, types


@functools.lru_cache(maxsize=None)
def vector_bits() -> int:
    """The widest vectors of the machine the kernels are compiled for, in bits (LLVM splits
    wider ones, which with a block's many accumulators would spill them to the stack)."""
    if config.CPU_NAME not in (None, "host"):
        return 128  # (a named target, for code shared between machines: SSE's width)
    if config.CPU_FEATURES:  # (features named for Numba's target: "+avx2,-avx512f,...")
        named = set(config.CPU_FEATURES.split(","))
        return 512 if "+avx512f" in named else 256 if "+avx2" in named else 128
    features = llvmlite.binding.get_host_cpu_features()
    return 512 if features.get("avx512f") else 256 if features.get("avx2") else 128


def lanes(dtype) -> int:
    """Elements of `dtype` (float32 or float64) per vector: also the rows in a block."""
    return vector_bits() // dtype.bitwidth


def matvec_function(context, module, dtype):
    """`astjax_matvec_<dtype>(m, rows, cols, row_stride, v, out, out_stride)`: out[r] =
    sum_k m[r, k] * v[k] for r < rows (pointers as i8*, the rest intp, strides in bytes; each
    row of m and v contiguous). Needs rows and cols >= lanes(dtype)."""
    name = f"astjax_matvec_{dtype}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i8p, intp, intp, intp, i8p, i8p,
                                                             intp]), name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    _Matvec(context, builder, dtype, fn.args).emit()
    builder.ret_void()
    return fn


class _Matvec:
    """The body of matvec_function: blocks of `lanes` rows (rows >= lanes), the last one
    ending at the last row."""

    def __init__(self, context, builder, dtype, args):
        self.b = builder
        self.intp = context.get_value_type(types.intp)
        self.flt = context.get_value_type(dtype)
        self.n = lanes(dtype)
        self.vec = ir.VectorType(self.flt, self.n)
        self.item = dtype.bitwidth // 8
        self.m, self.rows, self.cols, self.rs, self.v, self.out, self.os = args

    def const(self, k):
        return ir.Constant(self.intp, k)

    def emit(self):
        b, n = self.b, self.n
        blocks = b.sdiv(b.add(self.rows, self.const(n - 1)), self.const(n))
        self.accs = [cgutils.alloca_once(b, self.vec) for _ in range(n)]
        with cgutils.for_range(b, blocks) as block:
            # the last block ends at the last row, summing again rows the one before did
            first = self._min(b.mul(block.index, self.const(n)),
                              b.sub(self.rows, self.const(n)))
            self._sum_block(b.gep(self.m, [b.mul(first, self.rs)]))
            self._store(first, self._fold([b.load(a) for a in self.accs]))

    def _store(self, first, total):
        """out[first + i] = total[i] for the block's rows: one vector store where they are
        adjacent, else one element each."""
        b, n = self.b, self.n
        start = b.gep(self.out, [b.mul(first, self.os)])
        with b.if_else(b.icmp_signed("==", self.os, self.const(self.item))) as (vector, apart):
            with vector:
                b.store(total, b.bitcast(start, self.vec.as_pointer()), align=self.item)
            with apart:
                for i in range(n):
                    at = b.gep(start, [b.mul(self.const(i), self.os)])
                    b.store(b.extract_element(total, ir.Constant(ir.IntType(32), i)),
                            b.bitcast(at, self.flt.as_pointer()))

    def _min(self, x, y):
        return self.b.select(self.b.icmp_signed("<", x, y), x, y)

    def _sum_block(self, start):
        """accs[i] = the products of row i of the block at `start` with v, summed per lane
        over its whole vectors, then the last `cols % n` columns, read as the row's last
        vector with the other lanes' products zeroed (so a row is read in whole vectors and
        never past its end)."""
        b, n = self.b, self.n
        starts = [b.gep(start, [b.mul(self.const(i), self.rs)]) for i in range(n)]
        for acc in self.accs:
            b.store(ir.Constant(self.vec, None), acc)
        whole = b.sdiv(self.cols, self.const(n))
        with cgutils.for_range(b, whole) as chunk:
            self._add_chunk(starts, b.mul(chunk.index, self.const(n)), None)
        rest = b.srem(self.cols, self.const(n))
        with b.if_then(b.icmp_signed(">", rest, self.const(0))):
            lane = ir.Constant(ir.VectorType(self.intp, n), [self.const(i) for i in range(n)])
            keep = b.icmp_signed(">=", lane, self._splat(b.sub(self.const(n), rest)))
            self._add_chunk(starts, b.sub(self.cols, self.const(n)), keep)

    def _splat(self, x):
        b = self.b
        ty = ir.VectorType(x.type, self.n)
        one = b.insert_element(ir.Constant(ty, None), x, ir.Constant(ir.IntType(32), 0))
        return b.shuffle_vector(one, ir.Constant(ty, None),
                                ir.Constant(ir.VectorType(ir.IntType(32), self.n), [0] * self.n))

    def _load(self, start, offset):
        """The vector at element `offset` of the row at `start` (an i8*)."""
        b = self.b
        at = b.gep(b.bitcast(start, self.flt.as_pointer()), [offset])
        return b.load(b.bitcast(at, self.vec.as_pointer()), align=self.item)

    def _add_chunk(self, starts, col, keep):
        b = self.b
        v = self._load(self.v, col)
        for acc, start in zip(self.accs, starts):
            product = b.fmul(self._load(start, col), v, flags=["contract"])
            if keep is not None:  # (the product, not x: 0 * inf would be NaN)
                product = b.select(keep, product, ir.Constant(self.vec, None))
            b.store(b.fadd(b.load(acc), product, flags=["contract"]), acc)

    def _fold(self, vectors):
        """One vector whose lane i is the sum of vectors[i]'s lanes: each level adds pairs,
        the first halves of their segments to the second halves, segments halving as their
        number doubles (a's segments first, then b's, so row order holds)."""
        b, n = self.b, self.n
        segment = n
        while len(vectors) > 1:
            half = segment // 2
            firsts, seconds = [], []
            for q in range(2 * n // segment):  # output segments of `half` lanes
                source = 0 if q < n // segment else n  # a's lanes, or b's after them
                base = source + (q % (n // segment)) * segment
                firsts += range(base, base + half)
                seconds += range(base + half, base + segment)
            mask = [ir.Constant(ir.VectorType(ir.IntType(32), n), m) for m in (firsts, seconds)]
            vectors = [b.fadd(b.shuffle_vector(x, y, mask[0]), b.shuffle_vector(x, y, mask[1]))
                       for x, y in zip(vectors[::2], vectors[1::2])]
            segment = half
        return vectors[0]
