"""Programs that call back into Python (pure_callback, io_callback, debug.callback), written
as JAX programs are; tests/test_callbacks.py runs them on each backend."""
import numpy as np
import scipy.special

import astjax as jax
import astjax.numpy as jnp
from astjax.experimental import io_callback


def bessel_sum(x):
    y = jax.pure_callback(scipy.special.j1, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return jnp.sum(jnp.sin(y) * x)


def host_stats(d, scale=1.0):
    return {"total": np.sum(d["a"] * d["b"]) * scale, "sorted": np.sort(d["a"])}


def pytree_callback(a, b):
    declared = {"total": jax.ShapeDtypeStruct((), a.dtype),
                "sorted": jax.ShapeDtypeStruct(a.shape, a.dtype)}
    out = jax.pure_callback(host_stats, declared, {"a": a, "b": b}, scale=2.0)
    return out["total"] + out["sorted"][0]


def through_lambda(x, k):
    shift = 3.0
    return jax.pure_callback(lambda v: np.cumsum(v) + shift, jax.ShapeDtypeStruct(x.shape, x.dtype),
                             x * k)


def callback_under_vmap(x, method):
    return jax.vmap(lambda row: jax.pure_callback(np.cumsum, jax.ShapeDtypeStruct(row.shape, row.dtype),
                                                  row, vmap_method=method))(x)


def differentiated(x):
    return jnp.sum(jax.pure_callback(np.exp, jax.ShapeDtypeStruct(x.shape, x.dtype), x))


def weighted(w, data):
    return jnp.sum(w * jax.pure_callback(np.exp, jax.ShapeDtypeStruct(data.shape, data.dtype), data))


@jax.custom_jvp
def j0(x):
    return jax.pure_callback(scipy.special.j0, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="sequential")


@j0.defjvp
def _j0_jvp(primals, tangents):
    x, = primals
    t, = tangents
    j1 = jax.pure_callback(scipy.special.j1, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                           vmap_method="sequential")
    return j0(x), -j1 * t


def j0_loss(x):
    return jnp.sum(j0(x) ** 2)


LOG = []


def record(x):
    LOG.append(np.array(x))
    return np.sum(x)


def logged_steps(x):
    for _ in range(3):
        x = x + io_callback(record, jax.ShapeDtypeStruct((), x.dtype), x, ordered=True)
    return x


def unused_io(x):
    io_callback(record, jax.ShapeDtypeStruct((), x.dtype), x)
    return x * 2.0


SEEN = []


def watched(x):
    jax.debug.callback(lambda v, scale: SEEN.append(float(np.sum(v)) * scale), x, scale=10.0)
    return jnp.tanh(x)


def wrong_shape(x):
    return jax.pure_callback(lambda v: v[:2], jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def wrong_dtype(x):
    return jax.pure_callback(lambda v: v.astype(np.int32), jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def raising(x):
    def fail(v):
        raise ValueError("the host function failed")
    return jax.pure_callback(fail, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def raising_on_negatives(x):
    def checked(v):
        if np.any(v < 0):
            raise ValueError("the host function refused a negative")
        return v * 2.0
    return jax.pure_callback(checked, jax.ShapeDtypeStruct(x.shape, x.dtype), x)


def prints_a_literal(x):
    jax.debug.print("x={} k={}", x, 1.5)
    return x * 2.0
