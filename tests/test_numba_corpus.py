"""Every corpus case, and its gradient and batched forms, on the Numba backend against the NumPy
backend (the oracle): same structure, shapes, dtypes and values.

Arguments are hypothesis' simplest example with varied values (found deterministically, as in
test_numba_backend.py), one dtype per case (alternating float64 and float32 over the corpus),
so each function compiles once.  The gradient is of the sum of the case's float results with
respect to its first float argument; the batch stacks two lanes of the arguments.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from corpus import CASES
from test_numba_backend import assert_same, corpus_args


def _dtype(k: int, case):
    wanted = (np.float64, np.float32)[k % 2]
    return wanted if wanted in case.dtypes else case.dtypes[0]


PARAMS = [pytest.param(case, _dtype(k, case), id=case.name) for k, case in enumerate(CASES)]


def total_of(fun):
    """fun's float results summed to one scalar (what grad differentiates)."""
    def total(*args):
        leaves = astjax.tree_util.tree_leaves(fun(*args))
        return sum(jnp.sum(leaf) for leaf in leaves
                   if getattr(leaf, "dtype", None) is not None
                   and jnp.issubdtype(leaf.dtype, jnp.floating))
    return total


def _first_float(args, static) -> int:
    for i, a in enumerate(args):
        leaves = astjax.tree_util.tree_leaves(a)
        if i not in static and leaves and all(np.asarray(x).dtype.kind == "f" for x in leaves):
            return i
    return -1


def _both(fun, args, static=()):
    """(Numba's result, the NumPy backend's result, the Numba JitFunction)."""
    numba_fn = astjax.jit(fun, static_argnums=static, backend="numba")
    expected = astjax.jit(fun, static_argnums=static, backend="numpy")(*args)
    return numba_fn(*args), expected, numba_fn


@pytest.mark.parametrize("case, dtype", PARAMS)
def test_jit(case, dtype):
    args = corpus_args(case, dtype)
    assert_same(*_both(case.fun, args, case.static_argnums))


@pytest.mark.parametrize("case, dtype", [p for p in PARAMS if p.values[0].differentiable])
def test_grad(case, dtype):
    args = corpus_args(case, dtype)
    argnum = _first_float(args, case.static_argnums)
    if argnum < 0:
        pytest.skip("no float array argument to differentiate")
    try:
        fun = astjax.grad(total_of(case.fun), argnums=argnum)
        expected = astjax.jit(fun, static_argnums=case.static_argnums)(*args)
    except AstjaxError as e:  # not a backend problem: the grad tests report it
        pytest.skip(f"grad does not apply: {str(e).splitlines()[0]}")
    got_fn = astjax.jit(fun, static_argnums=case.static_argnums, backend="numba")
    assert_same(got_fn(*args), expected, got_fn)


def _two_lanes(args, static):
    def stack(x):
        x = np.asarray(x)
        return np.stack([x, (x * 0.5).astype(x.dtype) if x.dtype.kind == "f" else x])
    return tuple(a if i in static else astjax.tree_util.tree_map(stack, a)
                 for i, a in enumerate(args))


@pytest.mark.parametrize("case, dtype", [p for p in PARAMS if p.values[0].batchable
                                         and not p.values[0].static_argnums])
def test_vmap(case, dtype):
    args = _two_lanes(corpus_args(case, dtype), case.static_argnums)
    try:
        expected = astjax.jit(astjax.vmap(case.fun))(*args)
    except AstjaxError as e:  # not a backend problem: test_vmap reports it
        pytest.skip(f"vmap does not apply: {str(e).splitlines()[0]}")
    got_fn = astjax.jit(astjax.vmap(case.fun), backend="numba")
    assert_same(got_fn(*args), expected, got_fn)
