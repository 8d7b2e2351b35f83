"""jit equals eager over the shared corpus (tests/corpus).

For every case and hypothesis-drawn arguments, `astjax.jit(f)(*args)` has the structure, dtypes,
shapes and values (rtol 1e-6 float64 / 1e-5 float32) of `f(*args)` run eagerly on NumPy values.
A few cases are also checked against `jax.jit` of the same source with JAX's modules swapped in.
Per case: the generated source compiles and points at the corpus file, a repeated signature does
not recompile, and a new dtype does.
"""
import copy
import logging
import os
import sys
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import astjax
from astjax.tree_util import tree_map
from corpus import CASES, by_name
from corpus.checks import assert_trees_match

# Bugs in astjax found by this corpus: (case name, dtype) -> reason. The xfails are strict, so
# a fix turns them into failures that ask for the entry to be removed.
KNOWN_BUGS: dict = {}

EXAMPLES = min(settings.default.max_examples, 6)   # per (case, dtype): 12 per case in all
JAX_EXAMPLES = 3
JAX_CASES = ["gelu_tanh", "nn_softmax_logsumexp", "moments", "bilinear", "power_iteration",
             "mlp", "attention", "sgd_step", "lax_while_data", "lax_scan_cumulative",
             "lax_cond_pytree", "leapfrog", "at_dynamic_index"]


def _marks(case, *dtypes) -> list:
    reasons = [KNOWN_BUGS[(case.name, np.dtype(d).name)] for d in dtypes
               if (case.name, np.dtype(d).name) in KNOWN_BUGS]
    return [pytest.mark.xfail(strict=True, reason=reasons[0])] if reasons else []


def _by_case_and_dtype(cases) -> list:
    return [pytest.param(case, dtype, marks=_marks(case, dtype),
                         id=f"{case.name}-{np.dtype(dtype).name}")
            for case in cases for dtype in case.dtypes]


def _by_case(cases) -> list:
    """One param per case, xfail if a known bug hits any of its dtypes."""
    return [pytest.param(case, marks=_marks(case, *case.dtypes), id=case.name) for case in cases]


def jitted(case):
    return astjax.jit(case.fun, static_argnums=case.static_argnums)


# ---------------------------------------------------------------- jit == eager
@pytest.mark.parametrize("case, dtype", _by_case_and_dtype(CASES))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_jit_matches_eager(case, dtype, data):
    args = data.draw(case.args(dtype), label="args")
    expected = case.expected(*copy.deepcopy(args))
    assert_trees_match(jitted(case)(*args), expected)


# ---------------------------------------------------------------- a second oracle: JAX
def as_jax(fun):
    """The same code with jnp / lax / nn bound to JAX's modules (helpers it calls too)."""
    import jax
    import astjax.lax
    import astjax.nn
    import astjax.numpy
    swap = {astjax.numpy: jax.numpy, astjax.lax: jax.lax, astjax.nn: jax.nn}
    module = sys.modules[fun.__module__]
    namespace = {k: swap.get(v, v) if isinstance(v, types.ModuleType) else v
                 for k, v in vars(module).items()}
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and value.__globals__ is vars(module):
            namespace[name] = types.FunctionType(value.__code__, namespace, value.__name__,
                                                 value.__defaults__, value.__closure__)
    return namespace[fun.__name__]


@pytest.mark.parametrize("case", _by_case([by_name(n) for n in JAX_CASES]))
@settings(max_examples=JAX_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_jit_matches_jax(case, data):
    """Structure, dtypes, shapes and values against jax.jit with 64-bit types enabled."""
    jax = pytest.importorskip("jax")
    assert case.jax
    args = data.draw(case.args(), label="args")
    with jax.enable_x64(True):
        expected = jax.jit(as_jax(case.fun), static_argnums=case.static_argnums)(*args)
    assert_trees_match(jitted(case)(*args), expected)


# ---------------------------------------------------------------- source and caching
def _as_dtype(args, case, dtype):
    def convert(x):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            return x.astype(dtype)
        return x
    return tuple(a if i in case.static_argnums else tree_map(convert, a)
                 for i, a in enumerate(args))


def _compilations(caplog) -> list:
    return [r for r in caplog.records if r.name == "astjax" and "compiling" in r.getMessage()]


@pytest.mark.parametrize("case", _by_case(CASES))
@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_source_and_recompilation(case, data, caplog):
    args = data.draw(case.args(np.float64), label="args")
    astjax.clear_caches()  # (other tests compile the same functions)
    f = jitted(case)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="astjax"):
        first = f(*args)
        source = f.source
        again = f(*args)
        assert len(_compilations(caplog)) == 1, "same signature compiled twice"
        f(*_as_dtype(args, case, np.float32))
        assert len(_compilations(caplog)) == 2, "a new dtype did not recompile"
    assert_trees_match(again, first)
    compile(source, f"<generated {case.name}>", "exec")
    path = case.fun.__code__.co_filename
    assert path in source.splitlines()[0]
    if "= lax." in source:   # (a body with no primitive, e.g. `return x`, has no line comments)
        assert f"# {os.path.basename(path)}:" in source, source
