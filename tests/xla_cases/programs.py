"""Functions the XLA backend tests compile (in a file, as astjax compiles from source)."""
import astjax
import astjax.numpy as jnp
from astjax import lax


def newton_sqrt(x):
    y = x
    while jnp.abs(y * y - x) > 1e-9 * x:
        y = 0.5 * (y + x / y)
    return y


def many_steps(x, n):
    i = 0
    while i < n:
        x = jnp.sin(x) + 0.1
        i += 1
    return x


def printing(x):
    astjax.debug.print("x is {}", x)
    return x * 2


def printing_in_loop(x):
    for i in range(3):
        if jnp.sum(x) > 100:
            astjax.debug.print("big {}", x)
        x = x * 2
    return x


def printing_while(x):
    """Prints inside a data-dependent loop and a branch; differentiated, its loop is taped."""
    y = x
    while y < 10.0:
        astjax.debug.print("at {:.4f}", y)
        y = y * 1.02 + 0.01 * jnp.sin(y)
    if y > 10.5:
        astjax.debug.print("overshot {:.4f}", y)
    return y * y


def integer_math(a, b):
    return a // b, a % b, jnp.floor_divide(a * 1.5, b), jnp.remainder(a * 1.5, b)


def indexing(x, i, v):
    return x[i], x.at[i].set(v), x.at[i].add(v), jnp.take_along_axis(x, jnp.argsort(x), axis=0)


def sorting(x):
    return jnp.sort(x), jnp.argsort(x), jnp.argmax(x), jnp.argmin(x), jnp.cumsum(x), \
        lax.cummax(x, axis=0)


def contractions(a, b):
    return jnp.einsum("ij,jk->ik", a, b), jnp.einsum("ii->i", a), jnp.einsum("ij->", a), \
        jnp.einsum("bi,bi->b", a, b.T), a @ b


def branches(x, k):
    y = lax.switch(k, [lambda v: v + 1, lambda v: v * 2, lambda v: -v], x)
    if jnp.sum(x) > 0:
        y = y * 3
    return y


def results_of_every_kind(x, i):
    """float32, bool, int32, complex64, a 0-d value, a size-0 array and a 2-d array."""
    return (x * 2.0, x > 0, i * 3, (x + 1j * x).astype(jnp.complex64), jnp.sum(x),
            x[:0], jnp.outer(x, x))


def results_of_every_kind_reference(x, i):
    import numpy as np
    return [x * 2.0, x > 0, i * 3, (x + 1j * x).astype(np.complex64),
            np.asarray(np.sum(x), np.float32), x[:0], np.outer(x, x)]


def batched_solve(a, b):
    import astjax.numpy as jnp
    return jnp.linalg.solve(a, b)


def sampled_image_grid(key, logits):
    """JAX's mnist_vae example's image grid: random bits cut into many slices."""
    images = iter(astjax.random.bernoulli(key, astjax.nn.sigmoid(logits)).reshape((-1, 4, 4)))
    return jnp.vstack([jnp.hstack([next(images).T for _ in range(4)]) for _ in range(4)])


def halvings(x):  # about log2(x) trips: the tape's length depends on x
    while x > 1.0:
        x = jnp.sin(x) * 0.1 + x * 0.5
    return x * x
