"""Matrix products in kernels: calls of code compiled once per machine.

A product's code (blas_runtime.emit_product: the empty sum, the matrix-vector path of
matvec_runtime, gemm on this thread, on Numba's pool or on OpenBLAS's own threads) was
emitted into each kernel and compiled again with it: 0.3-0.6 s of mlp_value_and_grad's cold
compile of 1.9-2.5 s (five products). Here it is compiled once per dtype, as
`astjax_product_float32` and `astjax_product_float64`, into a library whose machine code is
kept in the cache folder, and `dot`/`batched_dot` in a kernel store the operands' fields and
call the product by name, which LLVM resolves through the symbol registered when a kernel
first needs it (`registered`; as it resolves gemm's table). The file's key covers what the
code depends on: the generated kernels' fingerprint (the runtime's files, Numba's and
llvmlite's versions), the machine Numba compiles for and whether Numba's thread pool started
(without it, no call of the pool is compiled in). A file that cannot be read back is
compiled again and replaced.
"""
import hashlib
import os
import pickle

import llvmlite.binding
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import cpu_target
from numba.extending import intrinsic

from astjax.core.files import cache_root, write_atomic

from . import RUNTIME_FINGERPRINT, blas_runtime
from .blas_runtime import OPERAND_FIELDS, emit_product, float_matrices, operand

DTYPES = (types.float32, types.float64)
LIBRARY = "astjax_products"


def product_name(dtype) -> str:
    """The compiled product of `dtype`'s matrices."""
    return f"astjax_product_{dtype}"


def product_type(context):
    """void(intp *operand_fields, intp batches, intp fa, intp fb, intp own_threads)."""
    intp = context.get_value_type(types.intp)
    return ir.FunctionType(ir.VoidType(), [intp.as_pointer()] + [intp] * 4)


# ---------------------------------------------------------------- the library
def _module(context, suffix: str = ""):
    """The LLVM module defining the product of each dtype (named product_name(dtype) +
    suffix: tests build variants beside the registered ones)."""
    module = context.create_module(LIBRARY + suffix)
    for dtype in DTYPES:
        fn = ir.Function(module, product_type(context), product_name(dtype) + suffix)
        builder = ir.IRBuilder(fn.append_basic_block("entry"))
        slots, batches, *flags = fn.args
        fields = {name: builder.load(builder.gep(slots, [ir.Constant(batches.type, k)]))
                  for k, name in enumerate(OPERAND_FIELDS)}
        fa, fb, own = (builder.icmp_signed("!=", x, ir.Constant(x.type, 0)) for x in flags)
        emit_product(context, builder, dtype, fields, batches, fa, fb, own)
        builder.ret_void()
    return module


def _cache_path(codegen) -> str:
    key = repr((RUNTIME_FINGERPRINT, codegen.magic_tuple(), blas_runtime.POOL))
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return os.path.join(cache_root(), "numba", f"{LIBRARY}_{digest}.bin")


@global_compiler_lock
def _library() -> tuple:
    """The compiled library, and where it came from: read from the cache folder ("cache"),
    else compiled and stored there ("compiled")."""
    context = cpu_target.target_context
    codegen = context.codegen()
    path = _cache_path(codegen)
    try:
        with open(path, "rb") as f:
            state = pickle.load(f)
        return codegen.unserialize_library(state), "cache"
    except Exception:  # (absent, unreadable or garbled: compile it)
        pass
    library = codegen.create_library(LIBRARY)
    library.enable_object_caching()
    library.add_ir_module(_module(context))
    library.finalize()
    try:
        write_atomic(path, pickle.dumps(library.serialize_using_object_code()))
    except OSError:  # (a cache that cannot be written: compiled again by the next process)
        pass
    return library, "compiled"


def _register() -> str:
    library, source = _library()
    for dtype in DTYPES:
        llvmlite.binding.add_symbol(product_name(dtype),
                                    library.get_pointer_to_function(product_name(dtype)))
    return source


SOURCE = None  # where the registered products came from: "cache" or "compiled"


def registered() -> str:
    """The products' symbols registered (once a process), and where their code came from.
    Called by a kernel's first product as it is compiled, and by Numba before it loads a
    kernel with products from the disk cache (the kernel's reload hook): a process whose
    kernels have none never reads or compiles the library (0.2 s of a new machine's first
    compile)."""
    global SOURCE
    if SOURCE is None:
        SOURCE = _register()
    return SOURCE


# ---------------------------------------------------------------- calls from kernels
def _emit_product(context, builder, arrays, values, fa, fb, own_threads=None):
    """out[i] = op(a[i]) @ op(b[i]) for every batch i (2-D arrays: one): the operands'
    fields stored in a slot of the function and the compiled product called on them."""
    registered()
    context.active_code_library._reload_init.add(registered)
    intp = context.get_value_type(types.intp)
    operands = [operand(context, builder, t, v) for t, v in zip(arrays, values)]
    slots = _operand_slots(context, builder)
    for k, value in enumerate(x for own, _ in operands for x in own):  # (a's, b's, out's)
        builder.store(value, builder.gep(slots, [ir.Constant(intp, k)]))
    own = own_threads if own_threads is not None else ir.Constant(ir.IntType(1), 0)
    product = cgutils.get_or_insert_function(builder.module, product_type(context),
                                             product_name(arrays[2].dtype))
    builder.call(product, [slots, operands[2][1]] + [builder.zext(x, intp) for x in (fa, fb, own)])


def _operand_slots(context, builder):
    """The stack slot of a product's operand fields, one per function (its products run one
    after another, so they share it)."""
    shared = getattr(builder.function, "_astjax_operand_slots", None)
    if shared is None:
        intp = context.get_value_type(types.intp)
        shared = builder.function._astjax_operand_slots = cgutils.alloca_once(
            builder, intp, size=len(OPERAND_FIELDS))
    return shared


def _flags(context, builder, sig, args):
    return [context.cast(builder, v, t, types.boolean) for v, t in zip(args, sig)]


def _typed_product(ndim, a, b, out, ta, tb, *own_threads):
    """The signature and code of a product of `ndim`-D operands (None: not ours to take)."""
    if not float_matrices(a, b, out, ndim=ndim):
        return None
    sig = types.none(a, b, out, ta, tb, *own_threads)

    def codegen(context, builder, sig, args):
        fa, fb, *own = _flags(context, builder, sig.args[3:], args[3:])
        _emit_product(context, builder, sig.args[:3], args[:3], fa, fb, *own)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def dot(typingctx, a, b, out, ta, tb, own_threads):
    """out = op(a) @ op(b) for 2-D float operands, op(x) being x or x.T as its flag says: one
    gemm call, or past SPLIT_MACS multiply-adds one block of rows (or columns) per thread of
    Numba's pool; or, `own_threads` set (by a kernel without parallel loops), one call of
    NumPy's gemm, which threads it itself (see blas_runtime.THREADED)."""
    return _typed_product(2, a, b, out, ta, tb, own_threads)


@intrinsic
def batched_dot(typingctx, a, b, out, ta, tb):
    """out[i] = op(a[i]) @ op(b[i]) for (batch, rows, columns) float arrays: past SPLIT_MACS
    multiply-adds in all, the batches over Numba's pool (each product cut in blocks when
    there are fewer batches than threads)."""
    return _typed_product(3, a, b, out, ta, tb)
