"""jax.scipy.optimize.minimize (BFGS): the minimum JAX finds, on every backend and under vmap;
an objective with Python control flow (JAX cannot trace it) against SciPy's BFGS; the line
search's steps satisfy the strong Wolfe conditions."""
import numpy as np
import pytest

import astjax
import optimize_cases as cases

jax = pytest.importorskip("jax")

X0 = np.array([-1.2, 1.0, 0.5, 2.0])
RNG = np.random.default_rng(2)
INPUTS = RNG.normal(size=(20, 3))
TARGETS = np.tanh(INPUTS @ np.array([0.5, -1.0, 0.25])) + 0.01 * RNG.normal(size=20)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
def test_rosenbrock_as_jax(backend):
    x, value, success, status = astjax.jit(cases.fit_rosenbrock, backend=backend)(X0)
    with jax.enable_x64(True):
        want = jax.jit(cases.fit_rosenbrock)(X0)
    assert bool(success) and int(status) == 0 and bool(want[2])
    np.testing.assert_allclose(x, want[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(value, want[1], rtol=1e-8)


def test_regression_minimum_has_zero_gradient_and_batches():
    w, jac, success = astjax.jit(cases.fit_regression)(np.zeros(3), INPUTS, TARGETS)
    assert bool(success) and np.max(np.abs(jac)) < 1e-8
    with jax.enable_x64(True):
        want = jax.jit(cases.fit_regression)(np.zeros(3), INPUTS, TARGETS)[0]
    np.testing.assert_allclose(w, want, rtol=1e-6, atol=1e-8)
    starts = np.stack([np.zeros(3), np.ones(3), -np.ones(3)])
    batched = astjax.vmap(cases.fit_regression, in_axes=(0, None, None))(starts, INPUTS, TARGETS)
    np.testing.assert_allclose(batched[0], np.stack([want] * 3), rtol=1e-5, atol=1e-7)


def piecewise(x, scale):
    """Python control flow on array values: JAX cannot trace this objective."""
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total = total + scale * (x[i] - 1.0) ** 2
        else:
            total = total + scale * (x[i] - 1.0) ** 2 + 0.1 * x[i] ** 4
    return total


def test_python_control_flow_objective_against_scipy():
    import scipy.optimize as so
    from astjax.scipy.optimize import minimize
    x0 = np.array([-2.0, 3.0, 0.5])
    got = minimize(piecewise, x0, args=(2.0,), method="BFGS")
    want = so.minimize(lambda x: piecewise(x, 2.0), x0, method="BFGS")
    assert bool(got.success)
    np.testing.assert_allclose(got.x, want.x, atol=1e-5)
    np.testing.assert_allclose(astjax.jit(lambda x: minimize(piecewise, x, args=(2.0,),
                                                            method="BFGS").x)(x0), got.x)


def test_line_search_satisfies_the_strong_wolfe_conditions():
    from astjax.scipy.optimize import line_search
    grad = astjax.value_and_grad(cases.rosenbrock)
    for x in (X0, np.array([0.3, -0.7, 1.5, 0.0]), np.array([2.0, 2.0, 2.0, 2.0])):
        f0, g0 = grad(x)
        p = -g0 / np.linalg.norm(g0)
        result = line_search(grad, x, p)
        assert not bool(result.failed)
        a = float(result.a_k)
        f, g = grad(x + a * p)
        assert f <= f0 + 1e-4 * a * np.dot(g0, p)
        assert abs(np.dot(g, p)) <= 0.9 * abs(np.dot(g0, p))


def test_unsupported_method_is_refused():
    from astjax.scipy.optimize import minimize
    with pytest.raises(ValueError, match="BFGS"):
        minimize(cases.rosenbrock, X0, method="Nelder-Mead")
