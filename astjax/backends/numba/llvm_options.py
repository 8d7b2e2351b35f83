"""How LLVM compiles the generated kernels: the interleave count and the vector width.

Both are set only around our kernels' compiles (`kernel_options`), so a user's own Numba
code keeps LLVM's defaults.
"""
import contextlib
import threading

import llvmlite.binding
from llvmlite.ir.values import FunctionAttributes
from numba.core import codegen

# LLVM's interleave count for the generated kernels' vectorised loops: each step works on this
# many vectors at once, with as many partial sums. LLVM's own choice was 1 for our loop bodies
# (long fused chains, reductions): a chain of math functions waited on its own latency and a
# reduction on its single accumulator. Measured with the Numba backend on the shared bench,
# 1 -> 4: chain_4M 7.6 -> 5.6 ms, softmax 1.60 -> 0.70 ms, layer_norm_gelu 1.64 -> 0.77 ms,
# vmapped attention 1.47 -> 0.75 ms, rmsnorm_silu 1.43 -> 0.95 ms; the others moved within noise
# (the most: nbody_grad 0.78 -> 0.84 ms). A cold compile takes ~5% longer.
INTERLEAVE = 4

# The widest vectors a kernel's loops use, in bits. LLVM's tuning for Intel's AVX-512 server
# cores (skylake-avx512, cascadelake, icelake-server) prefers 256-bit vectors, to spare the
# clock the lower frequency heavy 512-bit work runs at; our loops are long chains of math
# functions, for which twice the lanes win: chain_4M 10.5 -> 7.2 ms on a Cascade Lake. It is
# only a preference: a machine without AVX-512 keeps its own widths.
VECTOR_WIDTH = 512

_LOCK = threading.Lock()
_depth = 0


@contextlib.contextmanager
def kernel_options():
    """Numba compiles inside the block use the generated kernels' LLVM options. LLVM's
    options are process-wide, so they are set only around our kernels' compiles."""
    global _depth
    with _LOCK:
        _depth += 1
        if _depth == 1:
            llvmlite.binding.set_option("", f"-force-vector-interleave={INTERLEAVE}")
            codegen.CPUCodeLibrary.add_ir_module = _add_wide_module
    try:
        yield
    finally:
        with _LOCK:
            _depth -= 1
            if _depth == 0:
                llvmlite.binding.set_option("", "-force-vector-interleave=0")  # (LLVM's choice)
                codegen.CPUCodeLibrary.add_ir_module = _add_ir_module


class _WideVectorAttributes(FunctionAttributes):
    """A function's attributes plus LLVM's string attribute for the preferred vector width
    (llvmlite's attribute set takes only LLVM's keyword attributes)."""

    def __bool__(self):  # (llvmlite writes no attributes for an empty set)
        return True

    def _to_list(self, ret_type):
        return super()._to_list(ret_type) + [f'"prefer-vector-width"="{VECTOR_WIDTH}"']


_add_ir_module = codegen.CPUCodeLibrary.add_ir_module


def _add_wide_module(library, ir_module):
    """Numba's add_ir_module, every function the module defines marked for VECTOR_WIDTH
    (the kernel, and the functions its parallel loops are outlined into)."""
    for function in ir_module.functions:
        if not function.is_declaration and type(function.attributes) is FunctionAttributes:
            function.attributes.__class__ = _WideVectorAttributes
    return _add_ir_module(library, ir_module)
