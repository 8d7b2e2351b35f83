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
import astjax.numpy as jnp  # noqa: E402
from astjax import lax  # noqa: E402
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


# ---------------------------------------------------------------- beyond the corpus
# What the corpus reaches only in part: argmin along rows, a reverse cumulative maximum, a
# scatter-add with repeated indices, and a loop's tape growing past its first 16 rows.
def argmin_rows(x):
    return jnp.argmin(x, axis=0), jnp.argmax(x, axis=0), lax.argmin(x, 1, jnp.int32)


def reverse_cummax(x):
    return lax.cummax(x, axis=0, reverse=True), jnp.cumprod(x, axis=-1)


def repeated_scatter(x, idx):
    return jnp.zeros(4, x.dtype).at[idx].add(x), x.at[idx].min(-x)


def long_tape(x):
    def body(c):
        return c[0] + 1, c[1] * 0.95 + jnp.sin(c[1]) * 0.01
    return jnp.sum(lax.while_loop(lambda c: c[0] < 40, body, (0, x))[1])


def products(a, b, c):
    """Matrix products large enough for the CPU's BLAS: plain, transposed, batched."""
    return jnp.tanh(a @ b) + (b.T @ a.T).T, jnp.einsum("bij,bkj->bik", c, c)


def sorted_rows(x):
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), jnp.sort(x, axis=0)


rng = np.random.default_rng(1)
m = rng.standard_normal((3, 5)).astype(np.float32)
m[1, 2] = m[1, 4] = m[1].min() - 1  # ties: the first index wins
m[0, 1] = m[2, 1] = m[:, 1].max() + 1
v = rng.standard_normal(6).astype(np.float32)
index = np.array([1, 3, 1, -1, 7, 1])  # repeated, negative and out of range
ragged = np.array([[3.0, np.nan, 1.0, 3.0, -2.0], [0.5, 0.5, np.nan, np.nan, -1.0],
                   [2.0, 1.0, 2.0, 0.0, 1.0]], np.float32)  # ties and NaNs
EXTRA = [("argmin_rows", argmin_rows, (m,)), ("sorted_rows", sorted_rows, (ragged,)),
         ("reverse_cummax", reverse_cummax, (m,)),
         ("repeated_scatter", repeated_scatter, (v, index)),
         ("grad:repeated_scatter", astjax.grad(lambda x, i: jnp.sum(repeated_scatter(x, i)[0] ** 2)),
          (v, index)),
         ("long_tape", long_tape, (v[:3],)), ("grad:long_tape", astjax.grad(long_tape), (v[:3],)),
         ("products", products, tuple(rng.standard_normal(s).astype(np.float32)
                                      for s in ((40, 48), (48, 36), (3, 32, 40)))),
         ("grad:products", astjax.grad(lambda a, b, c: jnp.sum(products(a, b, c)[0] ** 2)),
          tuple((rng.standard_normal(s) * 0.1).astype(np.float32)  # (small: little cancellation)
                for s in ((40, 48), (48, 36), (1, 1, 1))))]
for name, fun, args in EXTRA:
    run(name, fun, args, (), np.float32)
