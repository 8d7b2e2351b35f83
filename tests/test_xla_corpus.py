"""Every corpus case, and its gradient and batched forms, on the XLA backend against the NumPy
backend (the oracle): same structure, shapes, dtypes and values (XLA's own math functions are
accurate to a few ulps, so float64 agrees to 1e-10)."""
import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError
from test_numba_backend import corpus_args
from test_numba_corpus import PARAMS, _first_float, _two_lanes, total_of

pytest.importorskip("jax", reason="the XLA backend compiles through jaxlib")


def assert_close(got, expected, fn):
    got_leaves = astjax.tree_util.tree_leaves(got)
    want_leaves = astjax.tree_util.tree_leaves(expected)
    avals = fn.last.spec.func.out_avals
    assert len(got_leaves) == len(want_leaves)
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        assert g.dtype == w.dtype or (len(avals) == len(got_leaves) and g.dtype == avals[k].dtype)
        rtol = 2e-5 if np.float32 in (g.dtype, w.dtype) else 1e-10
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("case, dtype", PARAMS)
def test_jit(case, dtype):
    args = corpus_args(case, dtype)
    expected = astjax.jit(case.fun, static_argnums=case.static_argnums, backend="numpy")(*args)
    fn = astjax.jit(case.fun, static_argnums=case.static_argnums, backend="xla")
    assert_close(fn(*args), expected, fn)


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
    fn = astjax.jit(fun, static_argnums=case.static_argnums, backend="xla")
    assert_close(fn(*args), expected, fn)


@pytest.mark.parametrize("case, dtype", [p for p in PARAMS if p.values[0].batchable
                                         and not p.values[0].static_argnums])
def test_vmap(case, dtype):
    args = _two_lanes(corpus_args(case, dtype), case.static_argnums)
    try:
        expected = astjax.jit(astjax.vmap(case.fun))(*args)
    except AstjaxError as e:  # not a backend problem: test_vmap reports it
        pytest.skip(f"vmap does not apply: {str(e).splitlines()[0]}")
    fn = astjax.jit(astjax.vmap(case.fun), backend="xla")
    assert_close(fn(*args), expected, fn)
