"""Threads and fork: first calls from 8 threads at once compile correctly (each cache and stack
of the front end is safe or per thread), and a process forked after a parallel Numba kernel
runs it again (TBB, not GNU OpenMP, runs the parallel loops)."""
import os
import subprocess
import sys

import pytest

CASES = os.path.join(os.path.dirname(__file__), "thread_cases")


def run(script, *args, timeout=600):
    done = subprocess.run([sys.executable, os.path.join(CASES, script), *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("backend, rounds", [("numpy", "5"), ("numba", "1")])
def test_first_calls_from_many_threads(backend, rounds):
    out = run("first_calls.py", backend, rounds)
    assert out.splitlines()[0] == "0", out


def test_fork_after_a_parallel_kernel_finishes():
    exitcode, parent, child = run("fork_after_parallel.py", timeout=300).split()
    assert exitcode == "0"
    assert float(child) == pytest.approx(float(parent))
