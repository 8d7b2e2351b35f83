"""Small programs whose results JAX defines (modes of take, repeat to a length, integer
arguments under grad, dtypes without x64), for tests/test_parity.py."""
import astjax as jax
import astjax.numpy as jnp
from astjax import lax


def take_modes(v, i):
    return (jnp.take(v, i), jnp.take(v, i, mode="clip"), jnp.take(v, i, mode="wrap"),
            jnp.take(v, i, mode="fill", fill_value=-3.0))


def take_along_modes(a, i):
    return jnp.take_along_axis(a, i, axis=1), jnp.take_along_axis(a, i, axis=1, mode="clip")


def repeat_to_length(a, counts):
    return jnp.repeat(a, counts, axis=0, total_repeat_length=6)


def counted_loss(p):
    return jnp.sum(p["w"] ** 2) * p["step"]


def unrolled(v):
    return lax.fori_loop(0, 10, lambda i, c: c * 0.9 + i, v, unroll=2)


def broadcast_python_number(v):
    return v * jnp.broadcast_to(1.0, v.shape) + jnp.concatenate([v[:1], jnp.ones(v.shape[0] - 1)])


def annotated(x: jax.Array) -> jax.Array:
    return x * 2


def precise_products(a, b, i):
    hi = lax.Precision.HIGHEST
    return (jnp.dot(a, b, precision=hi), jnp.matmul(a, b, precision="highest"),
            jnp.einsum("ij,jk->ik", a, b, precision=hi), jnp.tensordot(a, b, 1, precision=hi),
            jnp.inner(a, a, precision=hi), jnp.vdot(a, a, precision=hi),
            jnp.dot(i, i, preferred_element_type=jnp.float32))


def through_bfloat16(x):
    return (jnp.exp(x.astype(jnp.bfloat16)) * 2).astype(jnp.float32)


def scaled_by_axis_size(x):
    return x * lax.axis_size("i")


def dtypes_jax_fixes(v, iv):
    """Results whose dtype JAX fixes whatever jax_enable_x64 says (NumPy's differ)."""
    return (jnp.searchsorted(jnp.sort(v), v[:3]), jnp.digitize(v, jnp.array([0.5, 2.5])),
            jnp.argpartition(v, 1), jnp.tri(3, 4, 1), jnp.linspace(iv[0], 4, 3),
            jnp.float_power(v, 2), jnp.vecdot(iv, iv), jnp.append(v, 1.0))


def adam_bias_correction(w):
    """A float32 carry scaled by `1 - 0.9 ** t` of the loop counter: weak, so still float32."""
    def step(i, w):
        t = i + 1
        return w - 0.1 * w / (1 - 0.9 ** t)
    return lax.fori_loop(0, 5, step, w)


def sum_all_but_keyword_defaults(x):
    return jax.vmap(jnp.sum, in_axes=-1)(x), jax.vmap(jnp.sum)(x)


def smooth(x, y):
    return jnp.sin(x) * jnp.sum(y ** 2) + jnp.tanh(x @ y)


@jax.custom_jvp
def sin_with_a_wrong_derivative(x):
    return jnp.sin(x)


@sin_with_a_wrong_derivative.defjvp
def _twice_the_tangent(primals, tangents):
    return jnp.sin(primals[0]), 2.0 * tangents[0]


def sized_by(x):
    return jnp.zeros(int(x))
