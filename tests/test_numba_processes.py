"""Processes that compile the same Numba kernel at once (MPI's ranks, a pool's workers)
compile it once: the others wait for the first (a lock on the kernel's generated file) and
load its machine code from Numba's cache. Oracle: each process's dispatcher counts its cache
hits and misses."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("fcntl", reason="the lock is an fcntl advisory lock")

# Each process waits at a barrier (files in the shared folder) so that both start compiling
# together, then prints its kernel's cache misses and hits.
PROGRAM = """
import os, sys, time
import numpy as np
import astjax
import astjax.numpy as jnp


def smooth(x, w):
    return jnp.tanh(x @ w) * jnp.exp(-x.sum()) + jnp.sin(x).mean()


barrier = sys.argv[1]
open(os.path.join(barrier, str(os.getpid())), "w").close()
while len(os.listdir(barrier)) < 2:
    time.sleep(0.005)
x = np.linspace(-1, 1, 64).reshape(8, 8)
got = astjax.jit(smooth, backend="numba")(x, x)
want = np.tanh(x @ x) * np.exp(-x.sum()) + np.sin(x).mean()
assert np.allclose(got, want), abs(got - want).max()
(kernel,) = [m.smooth for name, m in sys.modules.items()
             if name.startswith("astjax_numba.smooth_")]  # (the generated module)
print(sum(kernel.stats.cache_misses.values()), sum(kernel.stats.cache_hits.values()))
"""


def test_two_processes_compiling_one_kernel_compile_it_once(tmp_path):
    program, barrier = tmp_path / "smooth.py", tmp_path / "barrier"
    program.write_text(PROGRAM)
    barrier.mkdir()
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path / "generated"),
               NUMBA_CACHE_DIR=str(tmp_path / "machine_code"))
    processes = [subprocess.Popen([sys.executable, str(program), str(barrier)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
    counts = []
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err[-2000:]
        counts.append(tuple(int(n) for n in out.split()))
    assert sorted(counts) == [(0, 1), (1, 0)]  # (one compiled, the other loaded its code)
