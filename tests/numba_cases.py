"""Functions the Numba backend is tested on beyond the shared corpus: float32/float64 chains
with weak scalars, integer arithmetic, every reduction and axis operation, transformed code
(grad of an MLP, vmap of a while loop, grad through scan and through a data-dependent while),
and effects.  Each entry: name -> (function, argument tuple), arguments fixed by a seed."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

rng = np.random.default_rng(7)
f32, f64 = np.float32, np.float64


def chain(x):
    y = jnp.tanh(x) * jnp.exp(-x * x) + 0.5 * jnp.sin(3.0 * x)
    return jnp.log1p(y * y) - jnp.sqrt(jnp.abs(x)) * 0.25


def more_math(x, s):
    a = jnp.cos(x) + jnp.expm1(x / 4) - jnp.arctan(x) * s
    b = jnp.where(x > 0, jnp.log(jnp.abs(x) + 1.0), jax_logistic(x))
    c = jnp.maximum(a, b) + jnp.minimum(a, 0.5) + jnp.floor(x * 2) + jnp.round(x)
    return c + jnp.clip(x, -1.0, 1.0) + lax.erf(x) + x ** 2 + jnp.arctan2(x, 1.5) + s


def staged_math(x):
    """Math enough for the elementwise loop to run in stages (backends/numba/stages.py): a
    value of the first stage is an output too, a flag on the input and the input itself are
    read in several stages, and three values are handed from stage to stage."""
    a = jnp.exp(-x * x)
    b = jnp.tanh(x) * a
    m = x > 0.3
    c = jnp.sin(b * 3.0) + jnp.cos(x)
    d = jnp.where(m, jnp.log1p(c * c), c)
    return a, d, jnp.arctan(d) + x * b


def jax_logistic(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def special(x):
    y = jnp.abs(x) + 0.5
    return lax.lgamma(y) + lax.digamma(y) + lax.erf_inv(x / 4) + lax.polygamma(1.0, y)


def ints(a, b):
    q = (a + b) * 3 // 2 - a % 5
    m = jnp.where(a > b, a, b) + jnp.abs(a - b)
    return q + m, (a ^ b) & 7, a / b, a < 2.5


def broadcasting(x, row, col):
    return (x * row + col) / (1.0 + x * x), jnp.exp(row) + col


def constants(x):
    """Array constants inside a fused chain (a weight row, a column), and the gradient of a
    product: the constants become module-level arrays read element by element."""
    w = jnp.array([0.5, -1.0, 2.0])
    return x * w + jnp.array([[1.0], [2.0], [3.0], [4.0]]) * jnp.exp(w), jnp.prod(x * w, axis=1)


def reductions(x):
    return (jnp.sum(x, axis=0), jnp.sum(x, axis=1), jnp.sum(x), jnp.max(x, axis=0, keepdims=True),
            jnp.min(x), jnp.prod(x[:2], axis=1), jnp.argmax(x, axis=1), jnp.argmin(x, axis=0),
            jnp.mean(x, axis=(0, 2)), jnp.all(x > -5.0), jnp.any(x > 2.0, axis=1))


def axis_ops(x):
    return (jnp.cumsum(x, axis=0), jnp.cumprod(x, axis=1), jnp.sort(x, axis=0),
            jnp.argsort(x, axis=1), jnp.concatenate([x, x * 2], axis=1), jnp.flip(x, axis=0),
            x.T.reshape(-1), jnp.pad(x, ((1, 2), (0, 1))), x[::2, 1:], jnp.arange(5) * 2,
            jnp.zeros((2, 3), jnp.int32) + 1, jnp.einsum("ii->i", x[:3, :3]))


def indexing(x, idx, v):
    y = x.at[idx].add(v)
    z = x.at[idx[0]].set(0.0)
    return y, z, x[idx], jnp.take_along_axis(x, jnp.argsort(x, axis=0), axis=0)


def dynamic(x, i):
    return lax.dynamic_slice(x, (i, 0), (2, 2)), lax.dynamic_update_slice(x, x[:1] * 0, (i, 1))


def mlp_loss(params, x, labels):
    h = jnp.maximum(x @ params["w1"] + params["b1"], 0.0)
    logits = h @ params["w2"] + params["b2"]
    logz = astjax.nn.logsumexp(logits, axis=1)
    picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    return jnp.mean(logz - picked)


def newton_sqrt(a):
    def cond(state):
        x, i = state
        return jnp.logical_and(jnp.abs(x * x - a) > 1e-6 * a, i < 50)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, _ = lax.while_loop(cond, body, (a + 1.0, 0))
    return x


def rnn_loss(params, xs):
    def step(h, x):
        h = jnp.tanh(h @ params["wh"] + x @ params["wx"])
        return h, jnp.sum(h * h)

    h0 = jnp.zeros((xs.shape[1], params["wh"].shape[0]), dtype=xs.dtype)
    _, losses = lax.scan(step, h0, xs, reverse=True)
    return jnp.mean(losses)


def halve(x):
    while jnp.sum(x * x) > 1.0:
        x = x * 0.5 + 0.01
    return jnp.sum(jnp.sin(x))


def branches(x, k):
    y = lax.switch(k, [lambda v: v + 1.0, lambda v: v * 2.0, lambda v: -v], x)
    if jnp.sum(y) > 0:
        y = y - jnp.mean(y)
    return y


def printing(x):
    astjax.debug.print("sum={}", jnp.sum(x))
    return x + 1


def _mlp_params(dtype):
    return {"w1": (rng.standard_normal((12, 16)) * 0.3).astype(dtype),
            "b1": np.zeros(16, dtype), "w2": (rng.standard_normal((16, 5)) * 0.3).astype(dtype),
            "b2": np.full(5, 0.1, dtype)}


def cases() -> dict:
    x23 = rng.standard_normal((4, 3, 2))
    m = rng.standard_normal((4, 5))
    return {
        "chain_f32": (astjax.jit(chain), (rng.standard_normal(1000).astype(f32),)),
        "chain_f32_parallel": (astjax.jit(chain), (rng.standard_normal(70_000).astype(f32),)),
        "chain_f64_2d": (astjax.jit(chain), (rng.standard_normal((30, 7)),)),
        "staged_math_f32": (astjax.jit(staged_math), (rng.standard_normal(9001).astype(f32),)),
        "staged_math_f64": (astjax.jit(staged_math), (rng.standard_normal(300_001),)),
        "more_math_f32_weak": (astjax.jit(more_math), (rng.standard_normal(50).astype(f32), 0.7)),
        "more_math_f64": (astjax.jit(more_math), (rng.standard_normal(50), f64(1.5))),
        "special_f64": (astjax.jit(special), (rng.uniform(-3, 3, 20),)),
        "ints_i32": (astjax.jit(ints), (rng.integers(-9, 9, 10).astype(np.int32),
                                        rng.integers(1, 9, 10).astype(np.int32))),
        "broadcasting_f32": (astjax.jit(broadcasting), (m.astype(f32), rng.standard_normal(5)
                                                        .astype(f32), rng.standard_normal((4, 1))
                                                        .astype(f32))),
        "reductions_f32": (astjax.jit(reductions), (x23.astype(f32),)),
        "constants_f64": (astjax.jit(constants), (rng.standard_normal((4, 3)),)),
        "grad_constants_f32": (astjax.jit(astjax.grad(lambda x: jnp.sum(constants(x)[1]))),
                               (rng.standard_normal((4, 3)).astype(f32),)),
        "reductions_f64": (astjax.jit(reductions), (x23,)),
        "axis_ops_f64": (astjax.jit(axis_ops), (m,)),
        "indexing_f32": (astjax.jit(indexing), (m.astype(f32), np.array([2, 0, 2, -1]),
                                                np.float32(1.5))),
        "dynamic_f64": (astjax.jit(dynamic), (m, np.int32(3))),
        "grad_mlp_f32": (astjax.jit(astjax.value_and_grad(mlp_loss)),
                         (_mlp_params(f32), rng.standard_normal((8, 12)).astype(f32),
                          rng.integers(0, 5, 8).astype(np.int32))),
        "vmap_while_f32": (astjax.jit(astjax.vmap(newton_sqrt)),
                           ((rng.random(64) * 100 + 0.01).astype(f32),)),
        "grad_scan_f64": (astjax.jit(astjax.grad(rnn_loss)),
                          ({"wh": rng.standard_normal((6, 6)) * 0.3,
                            "wx": rng.standard_normal((3, 6)) * 0.3},
                           rng.standard_normal((5, 2, 3)))),
        "grad_while_f64": (astjax.jit(astjax.grad(halve)), (rng.standard_normal(6) * 3,)),
        "branches_f32": (astjax.jit(branches), (m.astype(f32), 1)),
    }


# ---------------------------------------------------------------- fusion patterns
def row_softmax(x):
    return astjax.nn.softmax(x, axis=-1)


def row_logsumexp(x):
    return astjax.nn.logsumexp(x, axis=-1)


def row_layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta


def row_rms_norm(x, scale):
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    h = x * lax.rsqrt(ms + 1e-6) * scale
    return h * astjax.nn.sigmoid(h)


def row_cross_entropy(logits, labels):
    logz = astjax.nn.logsumexp(logits, axis=1)
    picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    return logz - picked


def pendulum_loss(params, y0):
    def step(i, y):
        q, p = y[0], y[1]
        p = p - 0.005 * (params[0] * jnp.sin(q) + params[1] * p)
        q = q + 0.01 * p
        p = p - 0.005 * (params[0] * jnp.sin(q) + params[1] * p)
        return jnp.stack([q, p])

    y = lax.fori_loop(0, 200, step, y0)
    return y[0] ** 2 + y[1] ** 2


def nbody_energy(pos, mass):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = jnp.sum(d * d, axis=-1) + 0.01
    pair = mass[:, None] * mass[None, :] / jnp.sqrt(r2)
    return -0.5 * jnp.sum(pair)


def logreg_loss(w, x, y):
    z = jnp.dot(x, w)
    return jnp.logaddexp(0.0, z) - y * z


def dense_tanh(x, w, b):
    return jnp.tanh(x @ w + b)


def train_linear(w, x, y):
    def loss(w):
        return jnp.mean((x @ w - y) ** 2)

    return lax.fori_loop(0, 20, lambda i, w: w - 0.1 * astjax.grad(loss)(w), w)


def vector_matrix(v, a):
    return jnp.exp(v @ a)


def einsum_forms(a, b, c):
    t = jnp.tanh(a) * 2.0  # (a value its products read while its loop nest is open)
    return (jnp.einsum("ij->ji", t), jnp.einsum("ij->i", t), jnp.einsum("ij,j->ij", t, b),
            jnp.einsum("ij,j,i->", t, b, c), jnp.einsum("ij,j->i", t, b),
            jnp.einsum("ij,kj->ik", t, t))


def einsum_streamed(a, b, u):
    t = jnp.tanh(a) * 2.0  # read by every product below: each is a pass of t's loop nest
    return (jnp.einsum("abk,k->ba", t, b), jnp.einsum("abk,ka->ab", t, u),
            jnp.einsum("abk,ka->ba", t, u), t)


def stacked_products(a, b):
    """Products summing over two leading axes (a gradient's sum over a scan's stacked steps
    and the batch): BLAS reads the operands transposed, no copy."""
    return (jnp.einsum("tbi,tbj->ij", a, b), jnp.einsum("tbi,tbj->ji", a, b),
            lax.dot_general(a, b, (((0, 1), (0, 1)), ((), ()))))


def wide_layers(w1, w2, x):
    """Products past the size where BLAS's work is cut into a block per thread: by rows
    (x @ w1, 300 x 120 out), by columns (h @ w2, 300 x 400), and the gradient's transposed
    reads (x.T @ dh, h.T @ g, g @ w2.T)."""
    h = jnp.tanh(x @ w1)
    return jnp.sum((h @ w2) ** 2)


def batched_wide(a, b):
    """One batch of a product large enough to split, and three small ones."""
    return (lax.dot_general(a[:1], b[:1], (((2,), (1,)), ((0,), (0,)))),
            jnp.einsum("bij,bjk->bik", a[:, :30], b[:, :, :20]))


def column_sums(x, b):
    """Sums down the columns of a nest large enough to run in parallel (600 x 300)."""
    h = jnp.tanh(x + b)
    return jnp.sum(h * h, axis=0), jnp.sum(h, axis=0) * 2.0, h


def slab_sums(x):
    """Sums down the first axis of a 3-D nest (64 x 8 x 300): partial sums per block of rows,
    combined over two kept axes."""
    h = jnp.tanh(x)
    return jnp.sum(h * h, axis=0), h


def decided_early_and_late(x):
    """any/all over a matrix, decided by its first elements or only by its last (each its own
    nest: the shapes differ): a serial nest that stops at its answer must still give it."""
    return (jnp.any(x > 0.5), jnp.all(x[:20] < 2.0), jnp.any(x[:, :10] > 10.0),
            jnp.all(x[5:] > -10.0), jnp.any(x[:33, ::-1] >= x[-1, 0]))


def scaled_outer(a, b):
    return jnp.outer(a, b) * 2.0 + 1.0


def masked_halving(x, running):
    """A batched-style while loop whose flags start out disagreeing with its test: a lane whose
    flag is false still has its test recomputed once while another lane runs."""
    def cond(s):
        return jnp.any(s[1])

    def body(s):
        x, r = s
        x2 = jnp.where(r, x * 0.5, x)
        return x2, x2 > 1.0

    return lax.while_loop(cond, body, (x, running))


def shrink_to_unit(v):
    """A lane's vector state: halve it until its norm is below one (rows of a 2-D carry, a
    reduction over the state's axis in the test)."""
    def cond(s):
        x, k = s
        return jnp.sum(x * x) > 1.0

    def body(s):
        x, k = s
        return x * 0.5, k + 1

    return lax.while_loop(cond, body, (v, 0))


def blocks_of_lanes(n: int = 10_000):
    """Lanes over more than two blocks of the blocked loop (4,096 lanes each), finishing at
    different times: the second block's lanes all finish at once, the others spread out."""
    a = (np.random.default_rng(3).random(n) * 100 + 0.01).astype(np.float32)
    a[4096:8192] = 1.0
    return a


def disagreeing_flags(n: int = 10_000):
    """masked_halving's flags over three blocks: only lane 0 runs at first, and lane 9,000,
    in another block, has a large value whose flag says stopped: the loop over all lanes
    recomputes its flag while lane 0 runs, so it is halved too."""
    x = np.full(n, 0.5)
    x[0], x[9000] = 64.0, 32.0
    running = np.zeros(n, bool)
    running[0] = True
    return x, running


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def doubled_one_hot(x):
    """A one-hot basis (a function of the position alone, read where it is used) doubled
    past the length such a value is written out for: the rest is computed in a nest."""
    n = x.shape[0]
    e = (lax.broadcasted_iota(jnp.int32, (n, n), 0) ==
         lax.broadcasted_iota(jnp.int32, (n, n), 1)).astype(x.dtype)
    for _ in range(20):
        e = e + e
    return e[1:, :-1] * x[:-1], jnp.pad(e, ((0, 1), (2, 0))) - 1.0


def transposed_and_multiplied(x, w):
    y = jnp.tanh(x) * 2.0
    return y.T, y @ w


def smoothed(x):
    """A three-point stencil along the last axis: reads guarded at both ends."""
    return 0.25 * jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(1, 1)])[..., :-2] + 0.5 * x + \
        0.25 * jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(1, 1)])[..., 2:]


def differences_loss(x):
    d = x[1:] - x[:-1]
    return jnp.sum(d * d) + 0.1 * jnp.sum(jnp.tanh(x))


def padded_over_constants(x):
    """Nests whose loops are tried for guards, reading constant arrays of their own (polyint's
    divisors): a trial that made a constant's local must not give its name away again."""
    q = x[4:7]
    return jnp.polyadd(x[:4], q), jnp.polyint(q), jnp.polyint(q, 2, k=3.0)


def fusion_cases() -> dict:
    x = rng.standard_normal((6, 9))
    return {
        "row_softmax": (astjax.jit(row_softmax), (x,)),
        "row_logsumexp": (astjax.jit(row_logsumexp), (x.astype(f32),)),
        "row_layer_norm": (astjax.jit(row_layer_norm), (x, rng.standard_normal(9),
                                                        rng.standard_normal(9))),
        "row_rms_norm": (astjax.jit(row_rms_norm), (x.astype(f32), np.ones(9, f32))),
        "row_cross_entropy": (astjax.jit(row_cross_entropy),
                              (x, rng.integers(0, 9, 6).astype(np.int32))),
        "lanewise_while_f64": (astjax.jit(masked_halving),
                               (np.array([4.0, 8.0, 0.5, 3.0]),
                                np.array([False, True, False, False]))),
        "lanewise_while_idle": (astjax.jit(masked_halving),
                                (np.array([4.0, 8.0]), np.array([False, False]))),
        "lanewise_while_blocks": (astjax.jit(masked_halving), disagreeing_flags()),
        "vmap_while_blocks": (astjax.jit(astjax.vmap(newton_sqrt)), (blocks_of_lanes(),)),
        "vmap_while_vector_state": (astjax.jit(astjax.vmap(shrink_to_unit)),
                                    (rng.standard_normal((9000, 3)) * 50,)),
        "grad_pendulum": (astjax.jit(astjax.grad(pendulum_loss)),
                          (np.array([9.8, 0.1]), np.array([1.0, 0.0]))),
        "nbody_energy": (astjax.jit(nbody_energy), (rng.standard_normal((7, 3)),
                                                    rng.random(7) + 0.5)),
        "grad_nbody": (astjax.jit(astjax.grad(nbody_energy)), (rng.standard_normal((7, 3)),
                                                               rng.random(7) + 0.5)),
        "grad_nbody_parallel": (astjax.jit(astjax.grad(nbody_energy)),
                                (rng.standard_normal((300, 3)), rng.random(300) + 0.5)),
        # matrix-vector products past the small-product size: loop nests, not BLAS calls
        "per_example_grads": (astjax.jit(astjax.vmap(astjax.grad(logreg_loss),
                                                     in_axes=(None, 0, 0))),
                              (rng.standard_normal(150).astype(f32),
                               rng.standard_normal((600, 150)).astype(f32),
                               (rng.random(600) > 0.5).astype(f32))),
        "dense_tanh_vector": (astjax.jit(dense_tanh), (rng.standard_normal((600, 150)),
                                                       rng.standard_normal(150) * 0.1, 0.5)),
        "train_linear_fori": (astjax.jit(train_linear),
                              (np.zeros(40, f32), rng.standard_normal((150, 40)).astype(f32),
                               rng.standard_normal(150).astype(f32))),
        "vector_matrix": (astjax.jit(vector_matrix), (rng.standard_normal(300) * 0.05,
                                                      rng.standard_normal((300, 400)))),
        "einsum_forms": (astjax.jit(einsum_forms), (rng.standard_normal((300, 200)),
                                                    rng.standard_normal(200),
                                                    rng.standard_normal(300))),
        "stacked_products": (astjax.jit(stacked_products), (rng.standard_normal((50, 16, 64)),
                                                            rng.standard_normal((50, 16, 48)))),
        "einsum_streamed": (astjax.jit(einsum_streamed), (rng.standard_normal((6, 5, 140)),
                                                          rng.standard_normal(140),
                                                          rng.standard_normal((140, 6)))),
        "wide_layers_grad": (astjax.jit(astjax.value_and_grad(wide_layers, argnums=(0, 1))),
                             (rng.standard_normal((160, 120)).astype(f32) * 0.1,
                              rng.standard_normal((120, 400)).astype(f32) * 0.02,
                              rng.standard_normal((300, 160)).astype(f32) * 0.05)),
        "batched_wide": (astjax.jit(batched_wide), (rng.standard_normal((3, 300, 160)),
                                                    rng.standard_normal((3, 160, 120)))),
        "column_sums": (astjax.jit(column_sums), (rng.standard_normal((600, 300)),
                                                  rng.standard_normal(300))),
        "column_sums_f32": (astjax.jit(column_sums),
                            (rng.standard_normal((600, 300)).astype(f32),
                             rng.standard_normal(300).astype(f32))),
        "slab_sums": (astjax.jit(slab_sums), (rng.standard_normal((64, 8, 300)),)),
        "decided_early_and_late": (astjax.jit(decided_early_and_late),
                                   (rng.standard_normal((40, 30)),)),
        "scaled_outer": (astjax.jit(scaled_outer), (rng.standard_normal(50),
                                                    rng.standard_normal(60).astype(f32))),
        "smoothed_parallel": (astjax.jit(smoothed), (rng.standard_normal(300_001).astype(f32),)),
        "smoothed_rows": (astjax.jit(smoothed), (rng.standard_normal((7, 40)),)),
        "smoothed_one": (astjax.jit(smoothed), (rng.standard_normal(1),)),
        "smoothed_two": (astjax.jit(smoothed), (rng.standard_normal(2).astype(f32),)),
        "grad_differences": (astjax.jit(astjax.grad(differences_loss)),
                             (rng.standard_normal(300_001).astype(f32),)),
        "grad_differences_three": (astjax.jit(astjax.grad(differences_loss)),
                                   (rng.standard_normal(3),)),
        "padded_over_constants": (astjax.jit(padded_over_constants),
                                  (rng.standard_normal(40),)),
        "hessian_rosenbrock": (astjax.jit(astjax.hessian(rosenbrock)),
                               (rng.standard_normal(64).astype(f32),)),
        "doubled_one_hot": (astjax.jit(doubled_one_hot), (rng.standard_normal(9),)),
        "transposed_and_multiplied": (astjax.jit(transposed_and_multiplied),
                                      (rng.standard_normal((30, 20)),
                                       rng.standard_normal((20, 5)))),
    }


def batches_of_a_loop(images):
    """The VAE example's batching: a dynamic slice at `(i % 4) * 2` of a fori_loop counter."""
    def body(i, acc):
        batch = lax.dynamic_slice_in_dim(images, (i % 4) * 2, 2)
        return acc + jnp.sum(batch ** 2)
    return lax.fori_loop(0, 4, body, 0.0)
