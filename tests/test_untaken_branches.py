"""A gradient through a converted Python `if` is the gradient of the branch Python takes: a
value only an untaken branch uses contributes nothing, even where it is nan or inf. The oracle
is jax.grad run eagerly (it runs the Python control flow on concrete values), per input."""
import numpy as np
import pytest

import astjax
import branch_cases as cases

jax = pytest.importorskip("jax")

CASES = [
    (cases.sqrt_guard, [(3.0, 1.0), (0.5, 1.0), (1.0, 1.0)]),
    (cases.log_guard, [(-2.0,), (0.0,), (2.0,)]),
    (cases.loop_continue, [(-1.0,), (0.5,), (2.5,), (5.0,)]),
    (cases.loop_early_return, [(-1.0,), (1.2,), (2.7,), (9.0,)]),
    (cases.nested, [(-1.0, 2.0), (1.0, 0.5), (0.5, 2.0)]),
]


def _jax_version(fun):
    """The same source run by JAX: astjax.numpy names mapped to jax.numpy."""
    import jax.numpy as jjnp
    namespace = dict(fun.__globals__, jnp=jjnp)
    return type(fun)(fun.__code__, namespace, fun.__name__)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
@pytest.mark.parametrize("fun, points", CASES, ids=[c[0].__name__ for c in CASES])
def test_grad_is_the_taken_branch_grad(fun, points, backend):
    grad = astjax.jit(astjax.grad(fun), backend=backend)
    oracle = jax.grad(_jax_version(fun))
    for point in points:
        with jax.enable_x64(True):
            want = float(oracle(*[np.float64(p) for p in point]))
        with np.errstate(all="ignore"):
            got = float(grad(*[np.float64(p) for p in point]))
        assert np.isfinite(got) == np.isfinite(want), point
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=str(point))


def test_vmap_of_grad_lanes_take_different_branches():
    x = np.array([-1.0, 0.25, 0.5, 3.0])
    got = astjax.jit(astjax.vmap(astjax.grad(cases.sqrt_guard), in_axes=(0, None)))(x, 1.0)
    oracle = jax.grad(_jax_version(cases.sqrt_guard))
    with jax.enable_x64(True):
        want = [float(oracle(v, np.float64(1.0))) for v in x]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_where_with_a_safe_operand_stays_finite():
    x = np.array([-2.0, 0.5, 3.0])
    got = astjax.jit(astjax.grad(cases.vector_where))(x)
    assert np.all(np.isfinite(got))
    want = np.where(x > 0, np.log(np.where(x > 0, x, 1.0)) + 1.0, 2 * x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
