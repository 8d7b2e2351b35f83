"""Data-parallel training with pmap: each device takes a shard of every batch, gradients are
averaged across devices with `lax.pmean`, and every device applies the same update, so the
parameters stay replicated and training does not depend on the number of devices.

    python examples/data_parallel.py --devices 4            # 4 XLA host devices
    python examples/data_parallel.py --devices 1 --backend numpy
    mpiexec -n 2 python examples/data_parallel.py --mpi --devices 1   # 2 MPI ranks

Written as a JAX program (`import astjax as jax`); it prints the final loss and parameters.
"""
import argparse
import os
import sys


def parse():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--backend", default="xla", choices=["xla", "numpy", "numba"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--mpi", action="store_true",
                        help="one process per MPI rank (launch with mpiexec), each with "
                             "--devices of its own")
    return parser.parse_args()


args = parse()
if args.backend == "xla":  # host devices are made when jaxlib starts: say how many first
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"

import numpy as np  # noqa: E402

import astjax as jax  # noqa: E402
import astjax.numpy as jnp  # noqa: E402
from astjax import lax  # noqa: E402


def init(key, n_in, n_hidden):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (n_in, n_hidden), dtype=jnp.float64) / np.sqrt(n_in),
            "b1": jnp.zeros(n_hidden, dtype=jnp.float64),
            "w2": jax.random.normal(k2, (n_hidden,), dtype=jnp.float64) / np.sqrt(n_hidden)}


def loss(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((h @ params["w2"] - y) ** 2)


def train_step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    grads = lax.pmean(grads, axis_name="devices")  # every shard's gradient, averaged
    value = lax.pmean(value, axis_name="devices")
    params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return params, value


def main():
    if args.mpi:
        jax.distributed.initialize()
    n, rank, ranks = args.devices, jax.process_index(), jax.process_count()
    step = jax.pmap(train_step, axis_name="devices", in_axes=(None, 0, 0), out_axes=(None, None),
                    backend=args.backend)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3))
    y = np.sin(x @ np.array([1.0, -2.0, 0.5]))
    params = init(jax.random.PRNGKey(0), 3, 16)
    mine = lambda a: np.split(a, ranks)[rank]  # noqa: E731  (this process' rows)
    shards = lambda a: a.reshape((n, -1) + a.shape[1:])  # noqa: E731
    for _ in range(args.steps):
        params, value = step(params, shards(mine(x)), shards(mine(y)))
    if rank > 0:
        return 0
    where = f"{ranks} processes x {n} devices" if args.mpi else f"devices {n}"
    print(f"{where}, backend {args.backend}: loss {float(value):.10f}")
    print("w2", " ".join(f"{v:.10f}" for v in np.asarray(params["w2"])[:4]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
