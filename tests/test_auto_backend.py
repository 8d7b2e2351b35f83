"""The auto backend (astjax/backends/auto): XLA answers first, the Numba kernel is compiled in
another process and takes over when it agrees and is faster, the choice is recorded on disk,
and nothing of this changes a result or holds the caller up.

Results are checked against NumPy and the NumPy backend; processes that start fresh run
`auto_program.py` with their own cache folder."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.extra import numpy as hnp
from hypothesis import strategies as st

import astjax
import astjax.numpy as jnp
from astjax.backends.auto import record, tiered

TESTS = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(TESTS, "auto_program.py")


def run_program(mode: str, cache: str, timeout: float = 300.0):
    env = dict(os.environ, ASTJAX_CACHE_DIR=cache)
    env.pop("NUMBA_CACHE_DIR", None)  # (Numba's cache goes beside the generated modules)
    return subprocess.run([sys.executable, PROGRAM, mode], env=env, capture_output=True,
                          text=True, timeout=timeout)


def settle(f, args, expected, seconds=240.0):
    """Call until a tier is chosen, checking every result."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        np.testing.assert_allclose(f(*args), expected, rtol=1e-9, atol=1e-12)
        if f.last.call.stage == "settled":
            return f.last.call
        time.sleep(0.01)
    raise AssertionError(f"not settled after {seconds} s: {f.last.call.stage}")


@pytest.fixture
def hot_at_once(monkeypatch):
    monkeypatch.setattr(tiered, "HOT_CALLS", 1)


# ------------------------------------------------------------------ switching in this process
def softplus_rows(x, w):
    return jnp.sum(jnp.logaddexp(0.0, x @ w), axis=-1)


def _softplus_rows_np(x, w):
    return np.sum(np.logaddexp(0.0, x @ w), axis=-1)


def test_results_agree_on_every_tier_and_across_the_switch(monkeypatch):
    """Calls keep coming, on arguments of varying sizes, while the kernel compiles, is
    checked, timed and chosen: every result is NumPy's."""
    monkeypatch.setattr(tiered, "HOT_CALLS", 1)
    f = astjax.jit(softplus_rows, backend="auto")
    w = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    rows = st.integers(2, 6).flatmap(
        lambda n: hnp.arrays(np.float64, (n, 4), elements=st.floats(-3, 3)))

    @settings(max_examples=5, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(rows, min_size=1, max_size=4))
    def calls(xs):
        for x in xs:
            np.testing.assert_allclose(f(x, w), _softplus_rows_np(x, w), rtol=1e-9, atol=1e-12)
            stages.add(f.last.call.stage)
            time.sleep(0.005)

    stages = set()
    end = time.monotonic() + 240.0
    while time.monotonic() < end and not (f.last is not None and f.last.call.stage == "settled"):
        calls()
    assert f.last.call.numba is not None, stages  # the kernel came, agreed, and ran
    assert {"compiling", "settled"} <= stages, stages


def total_energy(q):
    d = q[:, None, :] - q[None, :, :]
    r2 = jnp.sum(d * d, axis=-1) + 1.0
    return jnp.sum(1.0 / jnp.sqrt(r2))


def test_a_gradient_switches_tiers_and_stays_right(hot_at_once):
    q = np.linspace(0.0, 2.0, 15).reshape(5, 3)
    g = astjax.jit(astjax.grad(total_energy), backend="auto")
    expected = astjax.jit(astjax.grad(total_energy), backend="numpy")(q)
    tier = settle(g, (q,), expected)
    assert tier.numba is not None and tier.winner in ("xla", "numba")
    assert g.source.startswith(f"# backend auto: this signature runs on {tier.winner}")


def printing(x):
    astjax.debug.print("x = {}", x)
    return x * 2.0


def test_a_function_with_effects_stays_on_its_first_tier(hot_at_once, capfd):
    f = astjax.jit(printing, backend="auto")
    for i in range(5):
        np.testing.assert_array_equal(f(np.full(2, float(i))), np.full(2, 2.0 * i))
    assert f.last.call.pinned and f.last.call.job is None
    assert capfd.readouterr().out.count("x = ") == 5  # each call printed once


def doubled(x):
    return jnp.sin(x) * 2.0


def test_xla_failing_falls_back_to_numpy_with_one_warning(monkeypatch):
    from astjax.backends import xla

    def refuse(func, origin="?"):
        raise RuntimeError("no XLA today")
    monkeypatch.setattr(xla, "compile_func", refuse)
    f = astjax.jit(doubled, backend="auto")
    x = np.linspace(0.0, 1.0, 7)
    with pytest.warns(UserWarning, match=r"doubled: the xla tier is dropped \(RuntimeError: no "
                                         r"XLA today\); numpy runs it") as caught:
        for _ in range(3):
            np.testing.assert_allclose(f(x), 2 * np.sin(x))
    assert len([w for w in caught if "dropped" in str(w.message)]) == 1
    assert f.last.call.first == "numpy"


def tripled(x):
    return jnp.cos(x) * 3.0


def test_a_kernel_that_disagrees_is_dropped(hot_at_once, monkeypatch):
    from astjax.backends import numba as numba_backend
    right = numba_backend.load
    monkeypatch.setattr(numba_backend, "load",
                        lambda generated, func: (lambda *a: right(generated, func)(*a) + 1.0))
    f = astjax.jit(tripled, backend="auto")
    x = np.linspace(0.0, 1.0, 5)
    with pytest.warns(UserWarning, match="tripled: the numba tier is dropped .*differs"):
        tier = settle(f, (x,), 3 * np.cos(x))
    assert tier.winner == "xla" and tier.numba is None
    np.testing.assert_allclose(f(x), 3 * np.cos(x))


def test_disagreement_tolerances():
    a = np.linspace(0.0, 1.0, 5)
    assert tiered.disagreement(a, a + 1e-9) is None
    assert "differs by up to" in tiered.disagreement(a, a + 1e-3)
    assert tiered.disagreement(a.astype(np.float32), (a + 1e-5).astype(np.float32)) is None
    assert tiered.disagreement((a, np.arange(3)), (a, np.arange(3) + 1)) == "result 1 differs"
    assert "shape" in tiered.disagreement(a, a[:3])


# ------------------------------------------------------------------ new processes
def test_the_choice_is_recorded_and_read_back_by_a_new_process(tmp_path):
    cache = str(tmp_path / "cache")
    first = run_program("settle", cache)
    assert first.returncode == 0, first.stderr[-3000:]
    assert "medians of" in first.stdout and "STAGE settled" in first.stdout, first.stdout
    (path,) = [os.path.join(cache, "auto", n) for n in os.listdir(os.path.join(cache, "auto"))]
    with open(path) as f:
        winner = json.load(f)["winner"]
    second = run_program("settle", cache)
    assert second.returncode == 0, second.stderr[-3000:]
    assert f"running on {winner} (the recorded choice)" in second.stdout, second.stdout
    assert "medians of" not in second.stdout and "compiled before" in second.stdout

    with open(path, "w") as f:  # a corrupted record: ignored, timed again, rewritten
        f.write('{"winner": "num')
    third = run_program("settle", cache)
    assert third.returncode == 0, third.stderr[-3000:]
    assert "medians of" in third.stdout, third.stdout
    with open(path) as f:
        assert json.load(f)["winner"] in ("xla", "numba")


def test_records_that_do_not_say_a_tier_are_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("ASTJAX_CACHE_DIR", str(tmp_path))
    from astjax.core import files
    monkeypatch.setattr(files, "_USABLE", {})
    for text in ("", "[]", '{"winner": "gpu"}', '{"winner": "numba"}', "\x00\xff"):
        os.makedirs(tmp_path / "auto", exist_ok=True)
        (tmp_path / "auto" / "k.json").write_bytes(text.encode("latin-1"))
        assert record.read("k") is None, text
    record.write("k", {"winner": "xla"})
    assert record.read("k") == {"winner": "xla"}


def test_a_changed_function_has_another_record():
    from astjax.core.ir import Func  # noqa: F401  (the key is of the core form)
    f1 = astjax.jit(lambda x: x * 2.0, backend="auto")
    f2 = astjax.jit(lambda x: x * 3.0, backend="auto")
    f1(np.ones(3)), f2(np.ones(3))
    assert f1.last.call.record_key != f2.last.call.record_key


def test_exit_during_a_background_compile_returns_at_once(tmp_path):
    start = time.time()
    done = run_program("exit", str(tmp_path / "cache"))
    ended = time.time()
    assert done.returncode == 0, done.stderr[-3000:]
    assert "a new process compiles it" in done.stdout, done.stdout
    (line,) = [ln for ln in done.stdout.splitlines() if ln.startswith("EXIT")]
    assert ended - float(line.split()[1]) < 3.0  # interpreter shutdown only
    assert ended - start < 60


def test_two_processes_share_one_compile_and_a_fork_carries_on(tmp_path):
    cache = str(tmp_path / "cache")
    env = dict(os.environ, ASTJAX_CACHE_DIR=cache)
    procs = [subprocess.Popen([sys.executable, PROGRAM, mode], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for mode in ("settle", "fork")]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    text = outs[0][0] + outs[1][0]
    assert text.count("a new process compiles it") == 1, text  # the other one waited for it
    assert "CHILD STAGE settled" in outs[1][0] and "PARENT STAGE settled" in outs[1][0], text
