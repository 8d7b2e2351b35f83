"""The shared workloads on astjax's Numba backend, astjax's NumPy backend and jax.jit, side by
side in one run (ratios are what count on a shared machine).

    python bench/backends_bench.py [case ...] [--rounds N]

Each workload of /work/shared/bench/workloads.py is built twice from the same source: with
`impl` bound to astjax (then jitted with backend="numba" and with the default NumPy backend)
and bound to JAX (jax.jit).  Prints per case the first-call time (compilation included), the
median time, the ratios numba/jax and numpy/jax, and whether the results agree.
"""
import argparse
import importlib.util
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "bench")


def load_workloads(impl: str):
    """workloads.py with its `impl` module bound to astjax or jax (a fresh module each)."""
    os.environ["ASTJAX_BENCH_IMPL"] = impl
    sys.path.insert(0, SHARED)
    for name in ("impl", "workloads"):
        sys.modules.pop(name, None)
    spec = importlib.util.spec_from_file_location(f"workloads_{impl}",
                                                  os.path.join(SHARED, "workloads.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.remove(SHARED)
    return module


def with_backend(jitted, backend: str):
    """The same transformed function jitted with another astjax backend."""
    import astjax
    return astjax.jit(jitted.fun, static_argnums=jitted.static_argnums,
                      static_argnames=jitted.static_argnames, backend=backend)


def leaves(tree):
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in leaves(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [x for v in tree for x in leaves(v)]
    return [np.asarray(tree)]


def timed(fn, args, rounds: int) -> tuple:
    t0 = time.perf_counter()
    out = fn(*args)
    for leaf in leaves(out):
        pass
    first = time.perf_counter() - t0
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn(*args)
        for leaf in leaves(out):  # JAX is asynchronous: wait for the values
            getattr(leaf, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times), out


def agree(a, b) -> bool:
    return all(np.allclose(x, y, rtol=2e-3, atol=1e-5) for x, y in zip(leaves(a), leaves(b)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", nargs="*")
    parser.add_argument("--rounds", type=int, default=10)
    opts = parser.parse_args()
    ours = {name: (fn, args) for name, fn, args in load_workloads("astjax").cases()}
    theirs = {name: (fn, args) for name, fn, args in load_workloads("jax").cases()}
    print(f"{'case':22s} {'numba ms':>9s} {'numpy ms':>9s} {'jax ms':>9s} "
          f"{'numba/jax':>9s} {'numpy/jax':>9s} {'numba 1st s':>11s}  agree")
    for name, (fn, args) in ours.items():
        if opts.cases and name not in opts.cases:
            continue
        jax_fn, jax_args = theirs[name]
        try:
            nb_first, nb, nb_out = timed(with_backend(fn, "numba"), args, opts.rounds)
        except Exception as e:  # a failing case is reported, not hidden
            print(f"{name:22s} numba failed: {type(e).__name__}: {str(e)[:200]}")
            continue
        _, npy, np_out = timed(with_backend(fn, "numpy"), args, opts.rounds)
        _, jx, _ = timed(jax_fn, jax_args, opts.rounds)
        print(f"{name:22s} {nb * 1e3:9.2f} {npy * 1e3:9.2f} {jx * 1e3:9.2f} "
              f"{nb / jx:9.3f} {npy / jx:9.3f} {nb_first:11.2f}  {agree(nb_out, np_out)}")


if __name__ == "__main__":
    main()
