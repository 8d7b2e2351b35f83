"""Run by tests/test_cuda_backend.py in a subprocess with NUMBA_ENABLE_CUDASIM=1 (the variable
must be set before numba.cuda loads): every corpus case on backend="cuda" against the NumPy
backend, one JSON line per case: "same", "differs: ..." or "refused: ..."."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import astjax  # noqa: E402
from astjax.errors import TransformError  # noqa: E402
from corpus import CASES  # noqa: E402
from test_numba_backend import corpus_args  # noqa: E402


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


for case in CASES:
    dtype = np.float32 if np.float32 in case.dtypes else case.dtypes[0]
    args = corpus_args(case, dtype)
    try:
        got = astjax.jit(case.fun, static_argnums=case.static_argnums, backend="cuda")(*args)
    except TransformError as e:
        print(json.dumps({"case": case.name, "result": "refused: " + str(e).splitlines()[0]}))
        continue
    want = astjax.jit(case.fun, static_argnums=case.static_argnums)(*args)
    print(json.dumps({"case": case.name, "result": compare(got, want, dtype)}))
