"""shard_map over a mesh of 4 CPU devices, on astjax and on JAX: run in a fresh process with
XLA_FLAGS=--xla_force_host_platform_device_count=4 (tests/test_sharding.py); prints the
largest difference of each case."""
import sys

import numpy as np


def programs(J):
    jax, jnp, lax = J, J.numpy, J.lax
    P = J.sharding.PartitionSpec
    auto = J.sharding.AxisType.Auto  # (JAX's default, Explicit, checks the arguments' layout)
    mesh = jax.make_mesh((4,), ("x",), axis_types=(auto,))
    grid = jax.make_mesh((2, 2), ("a", "b"), axis_types=(auto, auto))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)

    def normalized(block):  # a global mean and max from per-device blocks
        total = lax.psum(jnp.sum(block), "x")
        top = lax.pmax(jnp.max(block), "x")
        return (block - total / 32.0) / top, lax.axis_index("x") + jnp.zeros(1, jnp.int32)

    def matmul(u, v):  # rows over a, the contracted axis over b
        return lax.psum(u @ v, "b")

    def ring(block):  # each device's block moved to the next device
        return lax.ppermute(block, "x", [(i, (i + 1) % 4) for i in range(4)])

    def gathered(block):
        return lax.all_gather(jnp.sum(block, axis=0), "x")

    def loss(w, x):  # a data-parallel gradient: per-device loss, psum'd gradient
        def local(w, xb):
            g = jax.grad(lambda w: jnp.mean(jnp.tanh(xb @ w) ** 2))(w)
            return lax.pmean(g, "x")
        return jax.shard_map(local, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)

    def reduce_scattered(block):  # each device keeps its quarter of the sum
        return lax.psum_scatter(block, "x", scatter_dimension=0, tiled=True)

    def transposed(block):  # rows split among the devices, columns gathered
        return lax.all_to_all(block, "x", 0, 1, tiled=True)

    def per_device(w, x):  # without JAX's typing: each device's own gradient, stacked
        grad = jax.grad(lambda w, xb: jnp.mean(jnp.tanh(xb @ w) ** 2))
        return jax.shard_map(grad, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x"),
                             check_vma=False)(w, x)

    return {
        "normalized": jax.jit(jax.shard_map(normalized, mesh=mesh, in_specs=P("x"),
                                            out_specs=(P("x"), P("x"))))(x),
        "matmul": jax.shard_map(matmul, mesh=grid, in_specs=(P("a", "b"), P("b", None)),
                                out_specs=P("a", None))(x, w),
        "ring": jax.jit(jax.shard_map(ring, mesh=mesh, in_specs=P("x"), out_specs=P("x")))(x),
        "gathered": jax.shard_map(gathered, mesh=mesh, in_specs=P("x"), out_specs=P(),
                                  check_vma=False)(x),
        "data_parallel_grad": jax.jit(loss)(w, x),
        "per_device_grads": jax.jit(per_device)(w, x),
        "psum_scatter": jax.shard_map(reduce_scattered, mesh=mesh, in_specs=P("x"),
                                      out_specs=P("x"), check_vma=False)(
            np.arange(64.0, dtype=np.float32).reshape(16, 4)),
        "all_to_all": jax.jit(jax.shard_map(transposed, mesh=mesh, in_specs=P("x"),
                                            out_specs=P("x"), check_vma=False))(
            np.arange(64.0, dtype=np.float32).reshape(16, 4)),
        "placed": jax.device_put(x, J.sharding.NamedSharding(mesh, P("x"))) * 2,
    }


if __name__ == "__main__":
    import jax
    import astjax
    want, got = programs(jax), programs(astjax)
    for name in want:
        wl, gl = jax.tree_util.tree_leaves(want[name]), jax.tree_util.tree_leaves(got[name])
        diff = max(float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
                   for a, b in zip(wl, gl))
        same = [np.shape(a) == np.shape(b) for a, b in zip(wl, gl)]
        print(name, len(wl) == len(gl) and all(same), diff)
    sys.stdout.flush()
