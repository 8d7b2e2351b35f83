"""Rough costs, decided before anything runs: how long the NumPy reference takes for one call
of a function with concrete sizes, and how long XLA takes to compile it.

They decide whether NumPy answers a new signature's first call while XLA compiles in the
background: where one NumPy call is cheaper than the compile, the caller waits for neither.
The figures are this machine class's (2 cores, AVX2), measured on the shared bench: the NumPy
tier spends ~20 us per primitive it interprets, ~1.5 ns per element of plain arithmetic, ~8 ns
of a math-library function, and its BLAS does ~40 GFLOP/s; XLA takes ~40 ms to compile the
smallest module and more per operation. Misjudging is safe either way: it only costs time.
"""
import math

from astjax.core.ir import Func, sub_funcs
from astjax.core.primitives import PRIMITIVES
from astjax.core.prims.elementwise import TRANSCENDENTAL

PER_PRIMITIVE_S = 20e-6
PER_ELEMENT_S = 1.5e-9
PER_MATH_ELEMENT_S = 8e-9
FLOPS = 40e9
COMPILE_BASE_S = 0.04
COMPILE_PER_PRIMITIVE_S = 0.002
COMPILE_PER_LOOP_S = 0.1   # a scan or while loop (measured 0.1-0.3 s more per loop)
COMPILE_PER_PRODUCT_S = 0.05  # a dot_general (0.05-0.15 s)
# kinds whose NumPy implementations are slow or unbounded (a convolution in Python loops,
# a factorisation, a sampler): never estimated, the function is compiled first
UNESTIMATED = {"convolution", "linalg", "fft", "sorting", "random", "window", "custom",
               "collective"}


def numpy_seconds(func: Func) -> float:
    """Seconds one call takes on the NumPy tier (math.inf: no estimate, e.g. a while loop,
    whose trip count nothing here knows)."""
    return sum(_eqn_seconds(eqn) for eqn in func.eqns)


def compile_seconds(func: Func) -> float:
    """Seconds XLA takes to compile the function (kept below what was measured)."""
    counts = _count(func, {})
    return COMPILE_BASE_S + COMPILE_PER_PRIMITIVE_S * sum(counts.values()) + \
        COMPILE_PER_LOOP_S * (counts.get("scan", 0) + counts.get("while_loop", 0)) + \
        COMPILE_PER_PRODUCT_S * counts.get("dot_general", 0)


def _count(func: Func, counts: dict) -> dict:
    """primitive name -> how many equations of it, nested functions' included."""
    for eqn in func.eqns:
        counts[eqn.prim] = counts.get(eqn.prim, 0) + 1
        for sub in sub_funcs(eqn):
            _count(sub, counts)
    return counts


def _eqn_seconds(eqn) -> float:
    prim = eqn.prim
    if prim == "scan":
        return PER_PRIMITIVE_S + eqn.params["length"] * numpy_seconds(eqn.params["body"])
    if prim in ("cond", "switch"):
        return PER_PRIMITIVE_S + max((numpy_seconds(b) for b in sub_funcs(eqn)), default=0.0)
    if prim == "while_loop" or any(True for _ in sub_funcs(eqn)):
        return math.inf
    kind = PRIMITIVES[prim].kind if prim in PRIMITIVES else "custom"
    if kind in UNESTIMATED:
        return math.inf
    if kind == "contraction":
        return PER_PRIMITIVE_S + 2 * _multiply_adds(eqn) / FLOPS
    per_element = PER_MATH_ELEMENT_S if prim in TRANSCENDENTAL else PER_ELEMENT_S
    elements = max([_size(v) for v in eqn.outs] + [_size(v) for v in eqn.ins], default=0)
    return PER_PRIMITIVE_S + per_element * elements


def _multiply_adds(eqn) -> float:
    """A product's multiply-adds from its operands' and result's sizes: m*k*n is
    sqrt(mk * kn * mn) (batch axes count once too many; close enough here)."""
    a, b = (_size(v) for v in eqn.ins[:2])
    return math.sqrt(float(a) * b * max(_size(eqn.outs[0]), 1))


def _size(value) -> int:
    aval = getattr(value, "aval", None)
    if aval is None:
        return 1
    size = 1
    for d in aval.shape:
        size *= d if isinstance(d, int) and d > 0 else 1
    return size
