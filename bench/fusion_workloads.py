"""More workloads in the form of the shared bench's workloads.py: the patterns the Numba
backend's loop nests fuse (row-wise normalisations, pairwise interactions, a training loop
inside fori_loop, batched attention).  Run side by side with JAX:

    ASTJAX_BENCH_WORKLOADS=$PWD/bench/fusion_workloads.py ASTJAX_BACKEND=numba \\
        python ../shared/bench/compare.py --rounds 3
"""
import numpy as np

from impl import jax, jnp, lax


# 1. Softmax over the rows of a batch of logits.
def softmax(x):
    return jax.nn.softmax(x, axis=-1)


# 2. Layer normalisation with a learned scale and shift, then GELU (tanh form).
def layer_norm_gelu(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    h = (x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta
    return jax.nn.gelu(h, approximate=True)


# 3. Pairwise interactions: the softened gravitational energy of n bodies, and its gradient.
def nbody_energy(pos, mass):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = jnp.sum(d * d, axis=-1) + 0.01
    pair = mass[:, None] * mass[None, :] / jnp.sqrt(r2)
    return -0.5 * jnp.sum(pair)


# 4. A training loop inside fori_loop: 100 steps of gradient descent on a linear model.
def train(w, x, y):
    def loss(w):
        return jnp.mean((x @ w - y) ** 2)

    def step(i, w):
        return w - 0.1 * jax.grad(loss)(w)

    return lax.fori_loop(0, 100, step, w)


# 5. Attention of a batch of heads, written for one head and batched with vmap.
def attention(q, k, v):
    s = q @ k.T * 0.125  # 1 / sqrt(64), the key size
    return jax.nn.softmax(s, axis=-1) @ v


def cases():
    rng = np.random.default_rng(0)
    f32 = np.float32
    yield "softmax", jax.jit(softmax), (rng.standard_normal((4096, 256)).astype(f32),)
    x = rng.standard_normal((4096, 256)).astype(f32)
    yield "layer_norm_gelu", jax.jit(layer_norm_gelu), (x, np.ones(256, f32),
                                                        np.zeros(256, f32))
    pos = rng.standard_normal((256, 3)).astype(f32)
    mass = rng.random(256).astype(f32) + 0.5
    yield "nbody_energy", jax.jit(nbody_energy), (pos, mass)
    yield "nbody_grad", jax.jit(jax.grad(nbody_energy)), (pos, mass)
    w = np.zeros(32, f32)
    xt = rng.standard_normal((512, 32)).astype(f32)
    yt = xt @ rng.standard_normal(32).astype(f32)
    yield "train_fori", jax.jit(train), (w, xt, yt)
    q, k, v = (rng.standard_normal((16, 128, 64)).astype(f32) for _ in range(3))
    yield "vmap_attention", jax.jit(jax.vmap(attention)), (q, k, v)
