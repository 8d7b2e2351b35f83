"""Objectives for jax.scipy.optimize.minimize, written against JAX's API."""
import jax.numpy as jnp
from jax.scipy.optimize import minimize


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def least_squares(w, inputs, targets):
    return jnp.mean((jnp.tanh(inputs @ w) - targets) ** 2) + 1e-3 * jnp.sum(w ** 2)


def fit_rosenbrock(x0):
    result = minimize(rosenbrock, x0, method="BFGS")
    return result.x, result.fun, result.success, result.status


def fit_regression(w0, inputs, targets):
    result = minimize(least_squares, w0, args=(inputs, targets), method="BFGS",
                      options={"gtol": 1e-8, "maxiter": 500})
    return result.x, result.jac, result.success
