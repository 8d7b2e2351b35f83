"""Parallel loops without parfors: rt.parallel runs a body over every position of [0, n) once,
on Numba's threads, raises what the body raised and survives Numba's disk cache; outline.py
turns a kernel's parallel loops into such bodies (or leaves a loop it cannot move to parfors)."""
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import astjax
from astjax.backends.numba import runtime as rt
from astjax.backends.numba.outline import outline


@numba.njit(error_model="numpy")
def _count(start, stop, seen, calls):
    calls[start] += 1  # (one slot per block: its first position)
    for i in range(start, stop):
        seen[i] += 1


@numba.njit(error_model="numpy")
def _counted(n, seen, calls):
    rt.parallel(_count, n, (seen, calls))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 300_001])
def test_every_position_runs_once(n, threads):
    seen, calls = np.zeros(n, np.int64), np.zeros(max(n, 1), np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        _counted(n, seen, calls)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(seen, np.ones(n, np.int64))
    assert calls.max(initial=0) <= 1 and (n == 0 or calls.sum() >= 1)


@numba.njit(error_model="numpy")
def _refuse_five(start, stop, out):
    for i in range(start, stop):
        if i == 5:
            raise ValueError("position five")
        out[i] = 2.0 * i


@numba.njit(error_model="numpy")
def _refusing(n, out):
    rt.parallel(_refuse_five, n, (out,))
    return out


def test_a_count_below_zero_runs_nothing():
    seen, calls = np.zeros(3, np.int64), np.zeros(3, np.int64)
    _counted(-5, seen, calls)
    assert not seen.any() and not calls.any()


def test_what_the_body_raises_the_kernel_raises():
    with pytest.raises(ValueError, match="position five"):
        _refusing(1000, np.zeros(1000))
    np.testing.assert_array_equal(_refusing(5, np.zeros(5)), 2.0 * np.arange(5))


def test_the_python_version_runs_the_body_once_over_everything():
    seen, calls = np.zeros(9, np.int64), np.zeros(9, np.int64)
    rt.parallel(_count.py_func, 9, (seen, calls))
    assert seen.tolist() == [1] * 9 and calls.tolist() == [1] + [0] * 8


def test_a_parallel_kernel_compiles_no_parfor(tmp_path):
    """The kernel of a large elementwise chain runs its loop through rt.parallel: no parfor
    gufunc is compiled, and the kernel is not `parallel=True`."""
    from numba.core import event

    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            compiled.append(getattr(getattr(ev.data.get("dispatcher"), "py_func", None),
                                    "__qualname__", ""))

        def on_end(self, ev):
            pass

    def chain(x):
        return astjax.numpy.tanh(x) * astjax.numpy.exp(-x * x)

    fn = astjax.jit(chain, backend="numba")
    x = np.linspace(-3.0, 3.0, 400_001)
    np.testing.assert_allclose(fn(x), np.tanh(x) * np.exp(-x * x), rtol=1e-13)
    assert "rt.parallel(" in fn.source and "parallel=True" not in fn.source, fn.source
    kernel = fn.last.call.kernel
    with event.install_listener("numba:compile", Listener()):
        kernel.recompile()  # (it may have come from the disk cache: compile it here)
    np.testing.assert_allclose(fn(x), np.tanh(x) * np.exp(-x * x), rtol=1e-13)
    assert kernel.py_func.__qualname__ in compiled, compiled
    assert not any("parfor" in name for name in compiled), compiled


CACHED = """
import sys
import numba, numpy as np
sys.path.insert(0, {folder!r})
import cached_kernel
out = cached_kernel.kernel(np.arange(100_000.0))
assert np.array_equal(out, 3.0 * np.arange(100_000.0)), out
print(len(cached_kernel.kernel.stats.cache_hits))
"""

KERNEL = """
import numba
import numpy as np
from astjax.backends.numba import runtime as rt


@numba.njit(cache=True, error_model='numpy')
def kernel(x):
    out = np.empty_like(x)
    rt.parallel(i_loop, x.shape[0], (x, out))
    return out


@numba.njit(error_model='numpy')
def i_loop(i_start, i_stop, x, out):
    for i in range(i_start, i_stop):
        out[i] = 3.0 * x[i]
"""


def test_a_kernel_loaded_from_the_disk_cache_runs_its_loops(tmp_path):
    """The loop's code lives in the kernel's own cached code; a new process loading it
    starts Numba's threads for it."""
    (tmp_path / "cached_kernel.py").write_text(KERNEL)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    program = CACHED.format(folder=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert [run.stdout.split()[-1] for run in runs] == ["0", "1"]  # (compiled, then loaded)


def _outlined(text: str, params: list):
    taken = set()

    def fresh(base):
        name, k = base, 1
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        return name

    return outline(textwrap.dedent(text).strip().splitlines(), params, fresh)


def test_a_loop_becomes_a_function_of_what_it_reads():
    lines, functions = _outlined("""
        n = x.shape[0]
        k = 3
        out = rt.empty((n, k), np.float32)
        for i in numba.prange(n):  # file.py:4  y = f(x)
            for j in range(k):
                out[i, j] = x[i] * j
        return out
        """, ["x"])
    assert lines == ["n = x.shape[0]", "k = 3", "out = rt.empty((n, k), np.float32)",
                     "rt.parallel(i_loop, n, (out, x))  # file.py:4  y = f(x)", "return out"]
    (function,) = functions
    assert function == [
        "@numba.njit(error_model='numpy')",
        "def i_loop(i_start, i_stop, out, x):",
        "    k = 3",  # (a constant is written again: LLVM sees its value)
        "    for i in range(i_start, i_stop):  # file.py:4  y = f(x)",
        "        i_at = np.uintp(i)  # (unsigned: no check for a negative index)",
        "        for j in range(k):",
        "            out[i_at, j] = x[i_at] * j"]


def test_nested_parallel_loops_run_serially_inside_the_outer_one():
    lines, (function,) = _outlined("""
        for b in numba.prange(4):
            for i in numba.prange(n):
                y[b, i] = b + i
        """, ["y", "n"])
    assert lines == ["rt.parallel(b_loop, 4, (n, y))"]
    assert "        for i in range(n):" in function, function
    assert not any("prange" in line for line in function), function


def test_a_loop_binding_a_name_read_after_it_stays_a_prange():
    """A value leaving the loop would be lost in a function: parfors keep such a loop."""
    assert _outlined("""
        for i in numba.prange(n):
            last = x[i]
        return last
        """, ["x", "n"]) is None
