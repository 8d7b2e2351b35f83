"""Functions for test_first_call.py's new processes."""
import astjax as jax
import astjax.numpy as jnp


def plain(x):
    return jnp.tanh(x) * 2.0 + 1.0


def cholesky_of_gram(a):
    return jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(a.shape[0]))


def through_jax_names(x):
    """Written as a JAX program is (`import astjax as jax` stands for `import jax`)."""
    return jax.lax.exp(x) + jax.numpy.tanh(x)


def noise(x):
    return x + jax.random.normal(jax.random.PRNGKey(0), (3,))
