"""Run by tests/test_cuda_backend.py in a subprocess with NUMBA_ENABLE_CUDASIM=1 (the variable
must be set before numba.cuda loads): every corpus case, its gradient and its batched form (as
tests/test_numba_corpus.py builds them) on backend="cuda" against the NumPy backend, one JSON
line each: "same", "differs: ..." or "refused: ..."."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import astjax  # noqa: E402
from astjax.errors import AstjaxError, TransformError  # noqa: E402
from corpus import CASES  # noqa: E402
from test_numba_backend import corpus_args  # noqa: E402
from test_numba_corpus import _first_float, _two_lanes, total_of  # noqa: E402


def compare(got, want, dtype) -> str:
    """Same structure, shapes and values (float32 inputs: float32's tolerance throughout)."""
    got, want = astjax.tree_util.tree_leaves(got), astjax.tree_util.tree_leaves(want)
    if len(got) != len(want):
        return "differs: structure"
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        rtol = 1e-5 if np.float32 in (g.dtype, w.dtype, dtype) else 1e-12
        if g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True):
            return f"differs: {g.shape} {w.shape}"
    return "same"


def run(name, fun, args, static, dtype):
    try:
        want = astjax.jit(fun, static_argnums=static)(*args)
    except AstjaxError:
        return  # the transformation does not apply: not a backend question
    try:
        got = astjax.jit(fun, static_argnums=static, backend="cuda")(*args)
    except TransformError as e:
        print(json.dumps({"case": name, "result": "refused: " + str(e).splitlines()[0]}))
        return
    print(json.dumps({"case": name, "result": compare(got, want, dtype)}), flush=True)


for case in CASES:
    dtype = np.float32 if np.float32 in case.dtypes else case.dtypes[0]
    args = corpus_args(case, dtype)
    run(case.name, case.fun, args, case.static_argnums, dtype)
    argnum = _first_float(args, case.static_argnums)
    if case.differentiable and argnum >= 0:
        run(f"grad:{case.name}", astjax.grad(total_of(case.fun), argnums=argnum), args,
            case.static_argnums, dtype)
    if case.batchable and not case.static_argnums:
        run(f"vmap:{case.name}", astjax.vmap(case.fun), _two_lanes(args, ()), (), dtype)
