"""Matrix products compiled once per machine and called by every kernel that has one.

A product's code (blas_runtime.emit_product: the empty sum, the matrix-vector path of
matvec_runtime, gemm on this thread, on Numba's pool or on OpenBLAS's own threads) was
emitted into each kernel and compiled again with it: 0.3-0.5 s of mlp_value_and_grad's cold
compile of 1.8-2.2 s (five products). Here it is compiled once per dtype, as
`astjax_product_float32` and `astjax_product_float64`, into a library whose machine code is
kept in the cache folder; a kernel stores its operands' fields and calls the product by
name, which LLVM resolves through the symbol registered at import (as it resolves gemm's
table). The file's key covers what the code depends on: the runtime's files, Numba's and
llvmlite's versions, the machine Numba compiles for and whether Numba's thread pool
started (without it, no call of the pool is compiled in). A file that cannot be read back is
compiled again and replaced.
"""
import hashlib
import os
import pickle

import llvmlite
import llvmlite.binding
import numba
from llvmlite import ir
from numba.core import types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import cpu_target

from astjax.core.files import cache_root, write_atomic

from .. import numba_runtime_digest
from . import blas_runtime
from .blas_runtime import OPERAND_FIELDS, emit_product, product_name, product_type

DTYPES = (types.float32, types.float64)
LIBRARY = "astjax_products"


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
    key = repr((numba_runtime_digest(), numba.__version__, llvmlite.__version__,
                codegen.magic_tuple(), blas_runtime.POOL))
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


# Registered when blas_runtime is imported: before any kernel with a product is compiled or
# loaded from the disk cache.
SOURCE = _register()  # ("cache" or "compiled": tests/test_numba_blas.py)
