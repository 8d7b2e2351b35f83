"""More workloads in the form of the shared bench's workloads.py: the idioms of ordinary JAX
programs (a CNN's gradient, sampling, sorting, batched solves, an LSTM's gradient, einsum
attention, a scalar loop, cross-entropy, embeddings, pooling, an ODE integrator, top_k, an Adam
step, jacrev, cond under vmap, FFT power, Cholesky). Run side by side with JAX:

    ASTJAX_BENCH_WORKLOADS=$PWD/bench/program_workloads.py python ../shared/bench/compare.py

With astjax's default `jax_enable_x64`, `random_sample` draws float64 samples (other numbers
than JAX's float32 ones: its checksum differs) and `lstm_grad`'s zero carries are float64;
`JAX_ENABLE_X64=0` gives JAX's dtypes and numbers (README, Dtypes).
"""
import numpy as np

from impl import jax, jnp, lax


def cnn_loss(w1, w2, x):
    h = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    h = jax.nn.relu(h)
    h = lax.conv_general_dilated(h, w2, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.mean(h ** 2)


def sample(key):
    k1, k2 = jax.random.split(key)
    return jnp.sum(jax.random.normal(k1, (1_000_000,)) * jax.random.uniform(k2, (1_000_000,)))


def sort_cumsum(x):
    return jnp.cumsum(jnp.sort(x, axis=-1), axis=-1)[:, -1] + jnp.argmax(x, axis=-1)


def solve_batch(a, b):
    return jnp.linalg.solve(a, b)


def lstm_loss(p, xs):
    def step(carry, x):
        h, c = carry
        i, f, g, o = jnp.split(x @ p["wx"] + h @ p["wh"], 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    b, n = xs.shape[1], p["wh"].shape[0]
    _, hs = lax.scan(step, (jnp.zeros((b, n)), jnp.zeros((b, n))), xs)
    return jnp.mean(hs ** 2)


def mha(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)


def scalar_newton(a):
    return lax.fori_loop(0, 30, lambda i, x: 0.5 * (x + a / x), a)


def xent(params, x, y):
    logits = jnp.tanh(x @ params["w"]) @ params["v"]
    return -jnp.mean(jnp.sum(jax.nn.one_hot(y, 10) * jax.nn.log_softmax(logits), axis=-1))


def embed_loss(table, ids, target):
    return jnp.mean((jnp.sum(jnp.take(table, ids, axis=0), axis=1) - target) ** 2)


def maxpool_gelu(x):
    y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jnp.sum(jax.nn.gelu(y))


def rk4_energy(params, y0):
    def f(y):
        return jnp.stack([y[1], -params[0] * jnp.sin(y[0]) - params[1] * y[1]])

    def step(i, y):
        h = 0.01
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jnp.sum(lax.fori_loop(0, 500, step, y0) ** 2)


def topk_sum(x):
    values, indices = lax.top_k(x, 8)
    return jnp.sum(values, axis=-1) + indices[:, 0]


def adam_step(params, grads, m, v):
    m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, grads)
    params = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8),
                                    params, m, v)
    return params, m, v


def jac_fn(x):
    return jnp.sin(x) * jnp.cumsum(x) + jnp.roll(x, 1) ** 2


def cond_vmap(x):
    return jax.vmap(lambda v: lax.cond(jnp.sum(v) > 0, jnp.tanh, lambda u: u * u, v))(x)


def fft_power(x):
    return jnp.abs(jnp.fft.rfft(x, axis=-1)) ** 2


def chol_logdet(a):
    return 2.0 * jnp.sum(jnp.log(jnp.diagonal(jnp.linalg.cholesky(a), axis1=-2, axis2=-1)),
                         axis=-1)


def cases():
    rng = np.random.default_rng(0)
    f32 = np.float32
    w1 = (rng.standard_normal((3, 3, 3, 16)) * 0.1).astype(f32)
    w2 = (rng.standard_normal((3, 3, 16, 32)) * 0.1).astype(f32)
    yield "cnn_grad", jax.jit(jax.grad(cnn_loss, argnums=(0, 1))), \
        (w1, w2, rng.standard_normal((32, 32, 32, 3)).astype(f32))
    yield "random_sample", jax.jit(sample), (jax.random.PRNGKey(0),)
    yield "sort_cumsum", jax.jit(sort_cumsum), (rng.standard_normal((512, 256)).astype(f32),)
    a = rng.standard_normal((64, 32, 32)).astype(f32) + 8 * np.eye(32, dtype=f32)
    yield "solve_batch", jax.jit(solve_batch), (a, rng.standard_normal((64, 32, 4)).astype(f32))
    p = {"wx": (rng.standard_normal((16, 256)) * 0.1).astype(f32),
         "wh": (rng.standard_normal((64, 256)) * 0.1).astype(f32)}
    yield "lstm_grad", jax.jit(jax.grad(lstm_loss)), \
        (p, rng.standard_normal((50, 32, 16)).astype(f32))
    q, k, v = (rng.standard_normal((4, 8, 64, 64)).astype(f32) for _ in range(3))
    yield "mha_einsum", jax.jit(mha), (q, k, v)
    yield "scalar_newton", jax.jit(scalar_newton), (np.float32(2.0),)
    params = {"w": (rng.standard_normal((64, 128)) * 0.1).astype(f32),
              "v": (rng.standard_normal((128, 10)) * 0.1).astype(f32)}
    yield "xent_grad", jax.jit(jax.value_and_grad(xent)), \
        (params, rng.standard_normal((256, 64)).astype(f32), rng.integers(0, 10, 256))
    table = rng.standard_normal((1000, 64)).astype(f32)
    ids = rng.integers(0, 1000, (256, 8)).astype(np.int32)
    yield "embed_grad", jax.jit(jax.grad(embed_loss)), \
        (table, ids, rng.standard_normal((256, 64)).astype(f32))
    yield "maxpool_gelu", jax.jit(maxpool_gelu), (rng.standard_normal((16, 64, 64, 8)).astype(f32),)
    yield "rk4_grad", jax.jit(jax.grad(rk4_energy)), (np.array([9.8, 0.1], f32),
                                                      np.array([1.0, 0.0], f32))
    yield "top_k", jax.jit(topk_sum), (rng.standard_normal((512, 128)).astype(f32),)
    weights = {"w": rng.standard_normal((256, 256)).astype(f32),
               "b": rng.standard_normal(256).astype(f32)}
    grads = {"w": rng.standard_normal((256, 256)).astype(f32),
             "b": rng.standard_normal(256).astype(f32)}
    zeros = {"w": np.zeros((256, 256), f32), "b": np.zeros(256, f32)}
    yield "adam_step", jax.jit(adam_step), (weights, grads, zeros, zeros)
    yield "jacrev", jax.jit(jax.jacrev(jac_fn)), (rng.standard_normal(128).astype(f32),)
    yield "cond_vmap", jax.jit(cond_vmap), (rng.standard_normal((1024, 64)).astype(f32),)
    yield "fft_power", jax.jit(fft_power), (rng.standard_normal((64, 1024)).astype(f32),)
    b = rng.standard_normal((64, 16, 16)).astype(f32)
    yield "chol_logdet", jax.jit(chol_logdet), (b @ b.transpose(0, 2, 1) + 16 * np.eye(16, dtype=f32),)
