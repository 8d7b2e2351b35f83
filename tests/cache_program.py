"""A program compiling one function on the NumPy and Numba backends (for test_cache_healing)."""
import numpy as np

import astjax
import astjax.numpy as jnp


def model(x):
    return jnp.tanh(x) * 2 + 1


x = np.linspace(-1, 1, 5)
print(float(np.asarray(astjax.jit(model, backend="numba")(x)).sum()),
      float(np.asarray(astjax.jit(model)(x)).sum()))
