"""Out-of-range indices as JAX treats them (JAX is the oracle, run on the same inputs): reads
clamp, updates at an index outside the array (an int, a run-time scalar or an element of an
index array) are dropped, mode="clip" clamps them, and
.get(mode="fill") reads the fill value, on every backend; never an IndexError."""
import numpy as np
import pytest

import astjax
import index_mode_cases as cases

jax = pytest.importorskip("jax")

X = np.arange(4.0)
M = np.arange(12.0).reshape(3, 4)
CALLS = [(cases.read_static, (X,)), (cases.set_static, (X,))] + \
    [(cases.set_dynamic, (X, i)) for i in (0, 3, 4, 10, -1, -4, -5)] + \
    [(cases.add_dynamic, (X, i)) for i in (2, 7, -9)] + \
    [(cases.set_dynamic_2d, (M, i, j)) for i, j in ((1, 2), (3, 0), (-1, -1), (0, 9))] + \
    [(cases.set_clipped, (X, i)) for i in (10, -10)] + \
    [(cases.read_dynamic, (X, i)) for i in (10, -10)] + \
    [(cases.read_or_fill, (X, i)) for i in (1, 4, -5)] + \
    [(cases.set_array, (X, np.array(i))) for i in ([0, 4, -1, -5, 2], [[7, 1], [-9, 3]])] + \
    [(cases.combine_array_2d, (M, np.array([0, 4, -1, -5, 2])))] + \
    [(cases.set_static_array, (X,))] + \
    [(cases.read_array_or_fill, (M, np.array(i))) for i in ([0, 4, -1, -5, 2], [2, -3])]


def jax_result(fun, args):
    import jax.numpy as jjnp
    jax_args = [jjnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    with jax.enable_x64(True):
        out = jax.jit(fun)(*jax_args)
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun, args", CALLS,
                         ids=[f"{f.__name__}{a[1:]}" for f, a in CALLS])
def test_out_of_range_indices_as_jax(fun, args, backend):
    call_args = [np.int64(a) if isinstance(a, int) else a for a in args]
    got = astjax.jit(fun, backend=backend)(*call_args)
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, jax_result(fun, args)):
        np.testing.assert_array_equal(np.asarray(g), w)
