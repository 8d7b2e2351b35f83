"""jax.experimental.ode.odeint against JAX's (the same method and steps, so the same values to
rounding), its derivatives against central differences (float64) and JAX's adjoint ones."""
import numpy as np
import pytest

import astjax
import ode_cases as cases
from astjax.errors import AstjaxError
from astjax.experimental.ode import odeint

jax = pytest.importorskip("jax")
from jax.experimental.ode import odeint as jax_odeint  # noqa: E402

TS = np.linspace(0.0, 5.0, 11)
Y0 = {"prey": np.array([1.0, 2.0]), "pred": np.array([0.5, 0.3])}


def _oscillator_in_jax(y, t, omega):
    jnp = jax.numpy
    return jnp.stack([y[1], -omega ** 2 * y[0] - 0.1 * y[1] + jnp.sin(t)])


def _jax_x64(fn, *args):
    with jax.enable_x64(True):
        return jax.tree_util.tree_map(np.asarray, fn(*args))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_pytree_state_and_arguments_integrate_as_jax_does(backend):
    want = _jax_x64(lambda: jax_odeint(cases.predator_prey, Y0, TS, 1.1, 0.4))
    got = astjax.jit(lambda a: odeint(cases.predator_prey, Y0, TS, a, 0.4),
                     backend=backend)(1.1)
    for key in Y0:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-12)


def test_eagerly_and_with_options_as_jax_does():
    y0, ts = np.array([1.0, 0.0]), np.linspace(0.0, 3.0, 7)
    for options in ({}, {"rtol": 1e-4, "atol": 1e-6}, {"hmax": 0.05}, {"mxstep": 3}):
        want = _jax_x64(lambda: jax_odeint(_oscillator_in_jax, y0, ts, 2.0, **options))
        got = odeint(cases.oscillator, y0, ts, 2.0, **options)
        # (with mxstep=3 the steps stop short and the interpolant extrapolates, which
        # magnifies the last bits of its coefficients)
        tol = 1e-8 if "mxstep" in options else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=str(options))


def test_float32_as_jax_does_without_x64():
    y0, ts = np.array([1.0, 3.0], np.float32), np.linspace(0.0, 2.0, 5).astype(np.float32)
    want = np.asarray(jax_odeint(cases.decay, y0, ts, np.float32(0.7)))
    got = astjax.jit(cases.decays)(y0, ts, np.float32(0.7))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_derivative_through_the_solver(backend):
    grad = astjax.jit(astjax.grad(cases.prey_total, argnums=(0, 1)), backend=backend)
    d_a, d_y0 = grad(1.1, Y0, TS)
    eps = 1e-6
    fd_a = (cases.prey_total(1.1 + eps, Y0, TS) - cases.prey_total(1.1 - eps, Y0, TS)) / (2 * eps)
    np.testing.assert_allclose(d_a, fd_a, rtol=1e-7)
    shifted = {"prey": Y0["prey"] + [eps, 0.0], "pred": Y0["pred"]}
    back = {"prey": Y0["prey"] - [eps, 0.0], "pred": Y0["pred"]}
    fd_y = (cases.prey_total(1.1, shifted, TS) - cases.prey_total(1.1, back, TS)) / (2 * eps)
    np.testing.assert_allclose(d_y0["prey"][0], fd_y, rtol=1e-6)
    with jax.enable_x64(True):
        want = jax.grad(lambda a: jax.numpy.sum(
            jax_odeint(cases.predator_prey, Y0, TS, a, 0.4)["prey"]))(1.1)
    np.testing.assert_allclose(d_a, want, rtol=1e-5)  # (JAX's adjoint: within tolerance)


def test_vmap_over_initial_states_matches_a_loop():
    y0s, ts = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]]), np.linspace(0.0, 1.0, 4)
    got = astjax.jit(astjax.vmap(cases.final_position, in_axes=(0, None, None)))(y0s, ts, 1.5)
    want = [odeint(cases.oscillator, y, ts, 1.5, rtol=1e-10, atol=1e-10)[-1, 0] for y in y0s]
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_integer_times_are_refused():
    with pytest.raises(AstjaxError, match="times must be floats"):
        odeint(cases.decay, 1.0, np.arange(3), 0.5)
