"""ODE programs as JAX programs write them (`jax.experimental.ode.odeint`), for tests/test_ode.py."""
import astjax.numpy as jnp
from astjax.experimental.ode import odeint


def decay(y, t, k):
    return -k * y


def predator_prey(state, t, a, b):
    prey, pred = state["prey"], state["pred"]
    return {"prey": a * prey - b * prey * pred, "pred": -pred + b * prey * pred}


def oscillator(y, t, omega):
    return jnp.stack([y[1], -omega ** 2 * y[0] - 0.1 * y[1] + jnp.sin(t)])


def prey_total(a, y0, ts):
    return jnp.sum(odeint(predator_prey, y0, ts, a, 0.4)["prey"])


def final_position(y0, ts, omega):
    return odeint(oscillator, y0, ts, omega, rtol=1e-10, atol=1e-10)[-1, 0]


def decays(y0, ts, k):
    return odeint(decay, y0, ts, k)
