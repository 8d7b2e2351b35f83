"""Functions for test_first_call.py's new processes."""
import astjax.numpy as jnp


def plain(x):
    return jnp.tanh(x) * 2.0 + 1.0


def cholesky_of_gram(a):
    return jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(a.shape[0]))
