"""Copies between arrays for generated kernels and the runtime's own jitted functions."""
import functools

from numba.core import types
from numba.extending import overload


def put(dst, src):
    """dst[...] = src, for an array `src` of dst's shape (the generated code's guarantee) or a
    scalar. Generated code copies through this, never through Numba's slice assignment: that
    one's shape-mismatch message compiles Numba's string formatting, 2.7 s of the first
    kernel compiled in a process (an RNN's gradient's first call pinned to Numba: 6.2 s,
    2.3 s without)."""
    dst[...] = src


@overload(put)
def _put(dst, src):
    if isinstance(dst, types.Array):
        return _put_loops(dst.ndim, isinstance(src, types.Array))
    return None


@functools.lru_cache(maxsize=None)
def _put_loops(ndim: int, from_array: bool):
    """put for arrays of rank `ndim`: a loop per axis, the last innermost (contiguous)."""
    index = ", ".join(f"i{k}" for k in range(ndim)) or "()"
    lines = ["def put(dst, src):"]
    for k in range(ndim):
        lines.append("    " * (k + 1) + f"for i{k} in range(dst.shape[{k}]):")
    lines.append("    " * (ndim + 1) + f"dst[{index}] = " +
                 (f"src[{index}]" if from_array else "src"))
    namespace: dict = {}
    exec("\n".join(lines), namespace)  # (one short function per rank, made once)
    return namespace["put"]
