"""Rough costs, decided before anything runs: how long the NumPy reference takes for one call
of a function with concrete sizes, and how long XLA takes to compile it and to run it
(optimised, or unoptimised: the same library calls for its matrix products, the rest slower).

These decide whether NumPy answers a new signature's first call while XLA compiles in the
background: where one NumPy call is cheaper than XLA's compile and first call, the caller
waits for neither.
Where it is not and the compile is long, the same holds of an unoptimised XLA executable
(compiled in a third of the time, its elementwise work several times slower).
The figures were measured on the shared bench on a 2-core AVX-512 machine (a Cascade Lake
Xeon; most match the AVX2 machine before it): the NumPy tier spends ~20 us per primitive it
interprets, ~1 ns per element of plain float32 arithmetic (1.5 of float64), ~2 ns per
element of a float32 math-library function (SIMD in NumPy: tanh 0.9, exp 1.1, sin 1.3,
log1p 5.4) and ~8 of a float64 one (sin 14), 7-27 ns of one computed an element at a time
(SPECIAL: erf, lgamma, logaddexp; the SciPy ones first cost scipy.special's import), and
its BLAS does ~40 GFLOP/s; XLA takes ~40 ms to compile the smallest module and more per
operation, and its compiled math functions take ~2.5 ns an element, a middle figure (exp,
tanh, and sin and cos by xla/trig.py, below 1 ns; tan, atan2, arcsin and pow, which XLA
computes with a C library call per element, 7-20). Misjudging is safe either way: it only
costs time.
"""
import math
import sys

import numpy as np

from astjax.core.ir import Func, sub_funcs
from astjax.core.primitives import PRIMITIVES
from astjax.core.prims.elementwise import TRANSCENDENTAL

PER_PRIMITIVE_S = 20e-6
# per element on the NumPy tier, by the element's width: (4 bytes or less, 8 or more)
PER_ELEMENT_S = (1e-9, 1.5e-9)
PER_MATH_ELEMENT_S = (2e-9, 8e-9)
# functions NumPy (or SciPy) computes one element at a time, whatever the width: 7-27 ns
# an element in float32 (erf 7, lgamma 22, logaddexp 27)
PER_SPECIAL_ELEMENT_S = 25e-9
SPECIAL = frozenset({"erf", "erfc", "erf_inv", "lgamma", "digamma", "polygamma", "logaddexp"})
# those of them the NumPy tier takes from scipy.special, whose import (once per process)
# takes ~0.25 s
FROM_SCIPY = SPECIAL - {"logaddexp"}
SCIPY_IMPORT_S = 0.25
FLOPS = 40e9
COMPILE_BASE_S = 0.04
COMPILE_PER_PRIMITIVE_S = 0.002
COMPILE_PER_LOOP_S = 0.1   # a scan or while loop (measured 0.1-0.3 s more per loop)
COMPILE_PER_PRODUCT_S = 0.05  # a dot_general (0.05-0.15 s)
# a compiled call (XLA's loops or Numba's): per element of plain arithmetic, of a math function,
# and per operation it runs (a loop's body counts once per step)
COMPILED_PER_ELEMENT_S = 0.3e-9
COMPILED_PER_MATH_ELEMENT_S = 2.5e-9
COMPILED_PER_PRIMITIVE_S = 0.3e-6
# XLA with LLVM's optimisation off (client.compile's `quick`): its elementwise work and loops
# are this many times slower (measured 2.4-4.4x); its products are the same library calls
QUICK_SLOWDOWN = 5
PRODUCT_INTENSITY = 8  # multiply-adds per element moved, below which a product is memory-bound
# kinds whose NumPy implementations are slow or unbounded (a convolution in Python loops,
# a factorisation, a sampler): never estimated, the function is compiled first
UNESTIMATED = {"convolution", "linalg", "fft", "sorting", "random", "window", "custom",
               "collective"}


# The Numba backend's cold compile of one kernel grows faster than linearly with its equations
# (LLVM on one large function): 0.3-3.6 s for the benches' 2-88 equations, 31 s for JAX's
# mnist_vae example's epoch (223: a VAE's gradient with its sampling, in a loop). Only a long
# compile needs telling apart (see tiered.LONG_COMPILE_S): n squared is the figure's shape.
NUMBA_PER_EQUATION_SQUARED_S = 0.0006


def numba_compile_seconds(func: Func) -> float:
    """Seconds, roughly, the Numba backend takes to compile the function's kernel cold."""
    n = sum(_count(func, {}).values())
    return NUMBA_PER_EQUATION_SQUARED_S * n * n


def numpy_seconds(func: Func, while_trips: int = None) -> float:
    """Seconds one call takes on the NumPy tier, scipy.special's import included where the
    call is the first to need it. A while loop's trip count nothing here knows: without
    `while_trips` (how many trips to count each loop as) its cost is math.inf."""
    imports = SCIPY_IMPORT_S if "scipy.special" not in sys.modules and \
        FROM_SCIPY & set(_count(func, {})) else 0.0
    return imports + _numpy_seconds(func, while_trips)


def _numpy_seconds(func: Func, trips: int = None) -> float:
    return sum(_eqn_seconds(eqn, trips) for eqn in func.eqns)


def compile_seconds(func: Func) -> float:
    """Seconds XLA takes to compile the function (kept below what was measured)."""
    counts = _count(func, {})
    return COMPILE_BASE_S + COMPILE_PER_PRIMITIVE_S * sum(counts.values()) + \
        COMPILE_PER_LOOP_S * (counts.get("scan", 0) + counts.get("while_loop", 0)) + \
        COMPILE_PER_PRODUCT_S * counts.get("dot_general", 0)


def compiled_seconds(func: Func) -> float:
    """Seconds one call takes on XLA's optimised executable (a while loop's body counted
    once)."""
    return _compiled_seconds(func)[1]


def quick_seconds(func: Func) -> float:
    """Seconds one call takes on XLA compiled with LLVM's optimisation off (a while loop's
    body counted once: its trip count is not known)."""
    products, total = _compiled_seconds(func)
    return products + QUICK_SLOWDOWN * (total - products)


def _compiled_seconds(func: Func) -> tuple:
    """(seconds in matrix products, seconds in all) of one compiled call."""
    products = total = 0.0
    for eqn in func.eqns:
        kind = PRIMITIVES[eqn.prim].kind if eqn.prim in PRIMITIVES else "custom"
        if any(True for _ in sub_funcs(eqn)):
            times = eqn.params["length"] if eqn.prim == "scan" else 1
            times = times if isinstance(times, int) and times > 0 else 1
            for sub in sub_funcs(eqn):
                p, t = _compiled_seconds(sub)
                products, total = products + times * p, total + times * t
        elif kind == "contraction" and _is_matrix_product(eqn):
            flops = 2 * _multiply_adds(eqn) / FLOPS
            products, total = products + flops, total + flops + COMPILED_PER_PRIMITIVE_S
        else:  # (a matrix-vector product or a broadcast one is memory-bound: elementwise)
            per_element = (COMPILED_PER_MATH_ELEMENT_S if eqn.prim in TRANSCENDENTAL
                           else COMPILED_PER_ELEMENT_S)
            total += COMPILED_PER_PRIMITIVE_S + per_element * _elements(eqn)
    return products, total


def _count(func: Func, counts: dict) -> dict:
    """primitive name -> how many equations of it, nested functions' included."""
    for eqn in func.eqns:
        counts[eqn.prim] = counts.get(eqn.prim, 0) + 1
        for sub in sub_funcs(eqn):
            _count(sub, counts)
    return counts


def _eqn_seconds(eqn, trips: int = None) -> float:
    prim = eqn.prim
    if prim == "scan":
        length = eqn.params["length"]
        if isinstance(length, (int, np.integer)) and length < 0:  # (a tape's: a while's trips)
            length = trips if trips is not None else math.inf
        return PER_PRIMITIVE_S + length * _numpy_seconds(eqn.params["body"], trips)
    if prim in ("cond", "switch"):
        return PER_PRIMITIVE_S + max((_numpy_seconds(b, trips) for b in sub_funcs(eqn)),
                                     default=0.0)
    if prim in ("while_loop", "while_loop_taped") and trips is not None:
        trip = sum(_numpy_seconds(f, trips) for f in (eqn.params["cond"], eqn.params["body"]))
        return PER_PRIMITIVE_S + trips * trip
    if prim in ("while_loop", "while_loop_taped") or any(True for _ in sub_funcs(eqn)):
        return math.inf
    kind = PRIMITIVES[prim].kind if prim in PRIMITIVES else "custom"
    if kind in UNESTIMATED:
        return math.inf
    if kind == "contraction":
        return PER_PRIMITIVE_S + 2 * _multiply_adds(eqn) / FLOPS
    if prim in SPECIAL:
        return PER_PRIMITIVE_S + PER_SPECIAL_ELEMENT_S * _elements(eqn)
    costs = PER_MATH_ELEMENT_S if prim in TRANSCENDENTAL else PER_ELEMENT_S
    return PER_PRIMITIVE_S + costs[_widest_item(eqn) > 4] * _elements(eqn)


def _is_matrix_product(eqn) -> bool:
    """A product doing at least PRODUCT_INTENSITY multiply-adds per element it reads and
    writes: bound by arithmetic (where tuned routines win), not by memory."""
    elements = sum(_size(v) for v in list(eqn.ins) + list(eqn.outs))
    return _multiply_adds(eqn) >= PRODUCT_INTENSITY * elements


def _multiply_adds(eqn) -> float:
    """A product's multiply-adds: its result's size times the size of what it sums over."""
    out = _size(eqn.outs[0])
    if eqn.prim == "dot_general":
        (contracted, _), _ = eqn.params["dimension_numbers"]
        return float(out) * _dims_size(eqn.ins[0], contracted)
    inputs, _, output = eqn.params.get("subscripts", "").partition("->")
    if not output or "..." in inputs:  # (implicit output or ellipsis: from the sizes alone)
        a, b = (_size(v) for v in eqn.ins[:2])
        return math.sqrt(float(a) * b * max(out, 1))
    sizes = {}
    for term, operand in zip(inputs.split(","), eqn.ins):
        for axis, label in enumerate(term.strip()):
            sizes[label] = _dims_size(operand, (axis,))
    summed = [n for label, n in sizes.items() if label not in output]
    return float(out) * math.prod(summed)


def _elements(eqn) -> int:
    """The elements an elementwise-like equation goes over: its largest operand or result."""
    return max([_size(v) for v in eqn.outs] + [_size(v) for v in eqn.ins], default=0)


def _widest_item(eqn) -> int:
    """The widest element, in bytes, among the equation's operands and results."""
    items = [np.dtype(v.aval.dtype).itemsize for v in list(eqn.ins) + list(eqn.outs)
             if getattr(getattr(v, "aval", None), "dtype", None) is not None]
    return max(items, default=4)


def _dims_size(value, axes=None) -> int:
    """The product of `value`'s sizes along `axes` (all of them by default); a symbolic or
    unknown size counts 1."""
    shape = getattr(getattr(value, "aval", None), "shape", ())
    return math.prod(d if isinstance(d, int) and d > 0 else 1
                     for i, d in enumerate(shape) if axes is None or i in axes)


def _size(value) -> int:
    return _dims_size(value)
