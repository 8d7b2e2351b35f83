"""Functions for the higher-order and composition tests (astjax compiles from source files)."""
import functools

import astjax
import astjax.numpy as jnp
from astjax import lax


def smooth(x):
    return jnp.sum(jnp.sin(x) * jnp.exp(0.3 * x) + x ** 3 / (1.0 + x * x))


def with_branch(x):
    y = jnp.tanh(x) * 2.0
    if jnp.sum(y) > 0.5:
        y = y * y + jnp.cos(x)
    return jnp.sum(y * x)


def vector_valued(x):
    return jnp.stack([jnp.sin(x[0]) * x[1], x[0] ** 2 + jnp.exp(x[1] * 0.5), jnp.sum(x * x)])


def scalar_fn(x):
    return jnp.sin(x) * x * x


@astjax.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return softplus(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


def softplus_loss(x):
    return jnp.sum(softplus(x) * x)


@astjax.custom_vjp
def clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def clipped_loss(x):
    return jnp.sum(clip_gradient(x * 3.0) * 5.0)


@astjax.custom_jvp
def wrong_derivative(x):
    return x * x


@wrong_derivative.defjvp
def _wrong_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return x * x, t * 10.0  # deliberately not 2x: the rule must be what is used


def uses_wrong_derivative(x):
    return jnp.sum(wrong_derivative(x))


def loop_then_scan(x):
    def step(c, xi):
        return c * 0.9 + jnp.sin(xi * c), c
    c, _ = lax.scan(step, jnp.sum(x), x)
    return c


def data_dependent_loop(x):
    while x < 10.0:
        x = x * 1.5 + jnp.sin(x)
    return x


def loop_until_large(x):
    """A while loop whose trip count depends on the differentiated value."""
    y = x
    while jnp.sum(y * y) < 10.0:
        y = y * y + 0.5 * y + jnp.flip(y) * 0.1
    return jnp.sin(y).sum()


def _fori_step(i, c):
    return jnp.sin(c) + c * 0.5


def fori_from_argument(x):
    """A fixed-length loop whose carry starts as the argument: every derivative of its
    gradient flows through the loop's tape."""
    return lax.fori_loop(0, 3, _fori_step, x)


def scan_from_literal(x):
    """A scan whose float carry starts as a literal (no tangent of its own)."""
    def step(c, xi):
        return c * jnp.cos(xi) + xi * xi, c
    c, _ = lax.scan(step, 1.0, x)
    return c


def counted_loop(x, limit):
    """A while loop whose trip count depends on a second argument, not on x."""
    n = 0.0
    while n < limit:
        x = jnp.sin(x) * 1.5 + x
        n = n + 1.0
    return x


@functools.partial(astjax.custom_vjp, nondiff_argnums=(0,))
def scaled_sine(scale, x):
    return scale * jnp.sin(x)


def _scaled_sine_fwd(scale, x):
    return scaled_sine(scale, x), jnp.cos(x)


def _scaled_sine_bwd(scale, cos_x, g):
    return (scale * cos_x * g * 0.5,)  # half the true derivative: the rule is seen


scaled_sine.defvjp(_scaled_sine_fwd, _scaled_sine_bwd)


def scaled_sine_loss(x):
    return jnp.sum(scaled_sine(3.0, x * 2.0))


@functools.partial(astjax.custom_jvp, nondiff_argnums=(1,))
def powered(x, n):
    return x ** n


@powered.defjvp
def _powered_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return powered(x, n), 2.0 * n * x ** (n - 1) * t  # twice the true derivative


def powered_loss(x):
    return jnp.sum(powered(x, 3))


@astjax.custom_jvp
def product(x, y):
    return x * y


product.defjvps(lambda tx, ans, x, y: tx * y * 10.0, lambda ty, ans, x, y: ty * x)


def product_loss(x):
    return jnp.sum(product(x, x + 1.0))
