"""The cheap-gradient principle, measured: value_and_grad of the bench MLP against its forward
pass, for astjax and JAX side by side (ratios are what count on a shared machine).

    python bench/grad_cost.py
"""
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))


def mlp_loss(jnp, nn):
    def loss(params, x, labels):
        h = jnp.maximum(x @ params["w1"] + params["b1"], 0.0)
        logits = h @ params["w2"] + params["b2"]
        logz = nn.logsumexp(logits, axis=1)
        picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
        return jnp.mean(logz - picked)
    return loss


def inputs():
    rng = np.random.default_rng(0)
    f32 = np.float32
    params = {"w1": (rng.standard_normal((784, 512)) * 0.05).astype(f32),
              "b1": np.zeros(512, f32),
              "w2": (rng.standard_normal((512, 10)) * 0.05).astype(f32),
              "b2": np.zeros(10, f32)}
    x = rng.standard_normal((256, 784)).astype(f32)
    labels = rng.integers(0, 10, 256).astype(np.int32)
    return params, x, labels


def median_time(fn, args, calls=30):
    fn(*args)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        out = fn(*args)
        for leaf in _leaves(out):
            getattr(leaf, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _leaves(tree):
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in _leaves(v)]
    if isinstance(tree, (tuple, list)):
        return [x for v in tree for x in _leaves(v)]
    return [tree]


def measure(name, jax, jnp, nn):
    loss = mlp_loss(jnp, nn)
    args = inputs()
    forward = median_time(jax.jit(loss), args)
    both = median_time(jax.jit(jax.value_and_grad(loss)), args)
    print(f"{name:8} forward {forward * 1e3:8.2f} ms   value_and_grad {both * 1e3:8.2f} ms"
          f"   ratio {both / forward:5.2f}")


def main():
    import astjax
    import astjax.nn
    import astjax.numpy
    measure("astjax", astjax, astjax.numpy, astjax.nn)
    try:
        import jax
        import jax.numpy
        import jax.nn
    except ImportError:
        print("jax not installed: skipping the JAX column")
        return
    measure("jax", jax, jax.numpy, jax.nn)


if __name__ == "__main__":
    main()
