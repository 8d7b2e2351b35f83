"""The XLA backend beyond the corpus: NumPy's integer and indexing rules, taped while loops
whose tapes outgrow their first buffer, debug printing, StableHLO locations and errors, and the
executable cache across processes."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import astjax
from astjax.backends import xla
from astjax.errors import TransformError
from xla_cases import programs

pytest.importorskip("jax", reason="the XLA backend compiles through jaxlib")


def both(fun, *args, static=()):
    got = astjax.jit(fun, backend="xla", static_argnums=static)(*args)
    want = astjax.jit(fun, backend="numpy", static_argnums=static)(*args)
    return astjax.tree_util.tree_leaves(got), astjax.tree_util.tree_leaves(want)


def assert_same(fun, *args, static=(), rtol=1e-12):
    got, want = both(fun, *args, static=static)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol)


def test_every_primitive_has_a_lowering():
    assert xla.missing() == []


@pytest.mark.parametrize("a, b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (0, 5)])
def test_floor_division_and_remainder_follow_numpy(a, b):
    a = np.array([a, a + 1, a - 3], np.int64)
    assert_same(programs.integer_math, a, np.int64(b))


def test_indexing_as_the_numpy_backend_reads_clamped():
    x = np.array([3.0, -1.0, 2.0, 7.0])
    for i in (1, -1, 3, 9, -9):
        assert_same(programs.indexing, x, np.int64(i), 5.0)
    got = astjax.jit(programs.indexing, backend="xla")(x, np.int64(9), 5.0)
    np.testing.assert_array_equal(got[0], 7.0)  # a read past the end clamps


def test_sorting_and_running_reductions():
    x = np.array([3.0, np.nan, -1.0, 2.0, -1.0, 7.0])
    got, want = both(programs.sorting, x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_contractions():
    rng = np.random.default_rng(0)
    assert_same(programs.contractions, rng.normal(size=(3, 3)), rng.normal(size=(3, 3)))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 5])
def test_switch_clamps_and_cond(k):
    assert_same(programs.branches, np.array([1.0, -2.0, 4.0]), np.int64(k))


def test_gradient_through_while_loop_matches_finite_differences():
    grad = astjax.jit(astjax.grad(programs.newton_sqrt), backend="xla")
    for x in (2.0, 1e6):
        np.testing.assert_allclose(grad(x), 0.5 / np.sqrt(x), rtol=1e-9)


def test_tape_longer_than_first_buffer_is_rerun_with_room():
    grad = astjax.jit(astjax.grad(programs.many_steps), backend="xla", static_argnums=1)
    want = astjax.jit(astjax.grad(programs.many_steps), static_argnums=1)
    for n in (3, 200, 1000):  # the first buffer holds 64 trips
        np.testing.assert_allclose(grad(0.3, n), want(0.3, n), rtol=1e-12)


def test_a_later_call_whose_tape_is_longer_is_rerun_with_room():
    """One executable for every x: a call that loops longer than the first buffer (64 trips)
    still reruns with room, after short calls went through the repeat calls' short path."""
    grad = astjax.jit(astjax.grad(programs.halvings), backend="xla")
    want = astjax.jit(astjax.grad(programs.halvings), backend="numpy")
    for x in (3.0, 5.0, 2.0 ** 200, 2.0 ** 600, 7.0):
        np.testing.assert_allclose(grad(x), want(x), rtol=1e-12)


def test_debug_print_prints_when_reached(capsys):
    out = astjax.jit(programs.printing, backend="xla")(np.arange(3.0))
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
    assert capsys.readouterr().out == "x is [0. 1. 2.]\n"


@pytest.mark.parametrize("start", [150.0, 1.0])
def test_debug_print_in_loops_and_branches_prints_as_numpy_does(capsys, start):
    printed = ""
    for program in (programs.printing_in_loop, programs.printing_while):
        x = np.full(3, start) if program is programs.printing_in_loop else start
        astjax.jit(program, backend="numpy")(x)
        want = capsys.readouterr().out
        astjax.jit(program, backend="xla")(x)
        assert capsys.readouterr().out == want
        printed += want
    assert printed.count("\n") >= 3


def test_debug_print_once_when_a_tape_overflow_reruns(capsys):
    """printing_while from 0.05 runs ~190 trips: the first tape (64 rows) overflows and the
    run is repeated, but each line is printed once."""
    astjax.jit(astjax.grad(programs.printing_while), backend="numpy")(0.05)
    want = capsys.readouterr().out
    got = astjax.jit(astjax.grad(programs.printing_while), backend="xla")(0.05)
    assert capsys.readouterr().out == want and want.count("at ") > 64
    np.testing.assert_allclose(got, astjax.grad(programs.printing_while)(0.05), rtol=1e-12)


def test_stablehlo_carries_user_locations(capsys):
    astjax.show(programs.newton_sqrt, 2.0, backend="xla")
    text = capsys.readouterr().out
    assert '"stablehlo.while"' in text
    assert 'programs.py":9:' in text   # the loop's line
    assert 'programs.py":10:' in text  # its body


def test_compile_error_points_at_user_line(monkeypatch):
    from astjax.backends.xla import client

    def broken(text, num_replicas=1, host_callbacks=(), quick=False):
        line = next(k for k, t in enumerate(text.splitlines(), 1) if "stablehlo.multiply" in t)
        raise RuntimeError(f"UNKNOWN: -:{line}:5: error: something XLA dislikes")
    monkeypatch.setattr(client, "compile", broken)
    monkeypatch.setenv("ASTJAX_CACHE_DIR", os.environ.get("ASTJAX_CACHE_DIR", "") + "-broken")
    with pytest.raises(TransformError) as info:
        astjax.jit(programs.printing, backend="xla")(np.arange(4.0))
    assert "programs.py:24:12" in str(info.value)  # `x * 2`, the multiply
    assert "something XLA dislikes" in str(info.value)


RUN = textwrap.dedent("""
    import sys, time, numpy as np
    sys.path.insert(0, {tests!r})
    import astjax
    from astjax.backends.xla import client
    from xla_cases import programs
    calls = []
    real = client.compile
    client.compile = lambda *a, **k: calls.append(1) or real(*a, **k)
    out = astjax.jit(astjax.grad(programs.newton_sqrt), backend="xla")(2.0)
    print(len(calls), float(out))
""")


def test_executable_cache_serves_a_new_process_and_heals(tmp_path):
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    script = RUN.format(tests=os.path.dirname(__file__))

    def run():
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        compiles, value = done.stdout.split()
        np.testing.assert_allclose(float(value), 0.5 / np.sqrt(2.0), rtol=1e-9)
        return int(compiles)

    assert run() == 1   # compiled and stored
    assert run() == 0   # loaded, not compiled
    (entry,) = (tmp_path / "xla").iterdir()
    entry.write_bytes(b"garbage")
    assert run() == 1   # a corrupt entry is compiled again
    assert run() == 0


def test_results_stay_where_xla_wrote_them_and_pass_on_without_a_copy():
    """On the CPU an XLA device's memory is the host's: a result is a read-only Array over
    the buffer XLA computed into, and handed to another XLA function it is aliased."""
    from astjax.backends.xla import client
    double = astjax.jit(lambda x: x * 2.0, backend="xla")
    y = double(np.arange(1000.0))
    assert isinstance(y, astjax.numpy.ndarray) and not np.asarray(y).flags.writeable
    view = np.asarray(y)
    assert client.put_array(view, client.devices()[0]).unsafe_buffer_pointer() == \
        view.ctypes.data
    z = double(y)
    np.testing.assert_array_equal(astjax.block_until_ready(z), np.arange(1000.0) * 4)
    assert float(z[3]) == 12.0 and "12." in repr(z) and (z + 1)[0] == 1.0


JAXLIB_ALONE = textwrap.dedent("""
    import sys
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    from xla_cases import programs
    f = astjax.jit(programs.results_of_every_kind, backend="xla")
    outs = f(np.linspace(-1.0, 1.0, 6, dtype=np.float32), np.arange(6, dtype=np.int32))
    for out in outs:
        a = np.asarray(out)
        print(a.dtype.str, a.shape, a.flags.writeable, repr(a.tolist()))
    big = np.linspace(-1.0, 1.0, 4097, dtype=np.float32)
    for _ in range(3):  # (larger arguments, aligned or not, put again and reused)
        f(big[:4096], np.arange(4096, dtype=np.int32))
        f(big[1:], np.arange(4096, dtype=np.int32))
    print("jax imported:", "jax" in sys.modules)
""")


def test_results_come_back_through_jaxlib_alone(tmp_path):
    """A new process runs the XLA backend without importing jax (a second of its first
    call), its larger arguments' puts and reuses included: results of every kind come back as
    read-only NumPy arrays of the right values."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", JAXLIB_ALONE.format(tests=os.path.dirname(
        __file__))], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "jax imported: False"
    assert "PjRt" not in done.stderr  # (XLA's start-up notes stay quiet, as under jax)
    x = np.linspace(-1.0, 1.0, 6, dtype=np.float32)
    i = np.arange(6, dtype=np.int32)
    want = programs.results_of_every_kind_reference(x, i)
    assert len(lines) == len(want) + 1
    for line, expected in zip(lines, want):
        dtype, rest = line.split(" ", 1)
        assert dtype == expected.dtype.str, line
        assert f"{expected.shape} False " in rest, line  # shape, then read-only
        got = np.array(eval(rest.split(" False ", 1)[1]), dtype=expected.dtype).reshape(
            expected.shape)
        np.testing.assert_allclose(got, expected, rtol=1e-6)


WITHOUT_JAX = textwrap.dedent("""
    import sys
    sys.modules["jax"] = None  # (as if only jaxlib were installed: `import jax` fails)
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    from xla_cases import programs
    print(float(astjax.jit(programs.newton_sqrt, backend="xla")(2.0)))
    try:
        astjax.jit(programs.printing, backend="xla")(np.arange(3.0))
    except astjax.errors.TransformError as e:
        print("refused:", e.message)
""")


def test_without_jax_one_device_runs_and_callbacks_are_refused_clearly(tmp_path):
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", WITHOUT_JAX.format(tests=os.path.dirname(
        __file__))], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    value, refusal = done.stdout.strip().splitlines()[-2:]
    assert float(value) == pytest.approx(np.sqrt(2.0), rel=1e-9)
    assert refusal.startswith("refused: a module that calls back into Python") and \
        "needs jax" in refusal, refusal


def _aligned(n: int) -> np.ndarray:
    from astjax.backends.xla import client
    memory = np.zeros(n * 4 + client.ALIGNMENT, np.uint8)
    start = (-memory.ctypes.data) % client.ALIGNMENT
    return memory[start:start + n * 4].view(np.float32)


def test_an_argument_equal_to_the_last_reuses_its_buffer_and_a_changed_one_does_not():
    """Small arrays are compared by shape, dtype and bytes; a larger aligned one by identity,
    its buffer aliasing its memory (so a change in place is read); a misaligned one (copied
    by jaxlib) by identity and bytes."""
    from astjax.backends.xla import client
    device = client.devices()[0]
    args = client.Arguments(device, 2)
    small = np.arange(8.0, dtype=np.float32)
    first = args.buffer(0, small)
    assert args.buffer(0, small.copy()) is first  # equal bytes: the same buffer
    small[3] = -1.0
    changed = args.buffer(0, small)
    assert changed is not first
    np.testing.assert_array_equal(np.asarray(changed), small)
    assert args.buffer(0, small.astype(np.float64)) is not changed  # another dtype

    large = _aligned(4096)
    large[:] = 1.0
    put = args.buffer(1, large)
    assert args.buffer(1, large) is put
    assert args.buffer(1, large.copy()) is not put  # another array, equal or not
    again = args.buffer(1, large)
    large[7] = 5.0  # (aliased: the buffer reads the array's memory)
    assert np.asarray(again)[7] == 5.0
    assert args.buffer(1, large.reshape(64, 64)) is not again  # its shape changed
    assert args.buffer(1, small) is not again  # a small array in the same position

    misaligned = _aligned(4096 + 4)[4:4100]  # (jaxlib copies it)
    assert misaligned.ctypes.data % client.ALIGNMENT
    seen, second = args.buffer(1, misaligned), args.buffer(1, misaligned)
    assert second is not seen  # (its bytes are read from the second call on)
    assert args.buffer(1, misaligned) is second
    misaligned[9] = 2.0
    copied = args.buffer(1, misaligned)
    assert copied is not second and np.asarray(copied)[9] == 2.0
    assert args.buffer(1, misaligned.copy()) is not copied


def test_calls_read_arguments_changed_in_place_between_calls():
    """Through the reuse of argument buffers, each call sees its arguments' values now."""
    f = astjax.jit(lambda x, y: x * 2.0 + y.sum(), backend="xla")
    small, large = np.ones(4, np.float32), _aligned(2048)
    large[:] = 0.5
    misaligned = _aligned(2048 + 4)[4:2052]
    misaligned[:] = 0.25
    for y in (large, misaligned):
        for step in range(3):
            np.testing.assert_allclose(f(small, y), small * 2.0 + y.sum(dtype=np.float64),
                                       rtol=1e-6)
            small += 1.0
            y[-step - 1] = 10.0 * step - 3.0


def test_aligned_inputs_are_aliased_and_misaligned_ones_copied():
    """The CPU client aliases 64-byte-aligned host memory; NumPy's 16-byte-aligned arrays are
    copied by jaxlib (on its own threads), and a call reads what they held."""
    from astjax.backends.xla import client
    device = client.devices()[0]
    memory = np.zeros(2 * 4096 + 256, np.uint8)
    start = (-memory.ctypes.data) % client.ALIGNMENT
    aligned = memory[start:start + 4096].view(np.float32)
    misaligned = memory[start + 4096 + 16:start + 2 * 4096 + 16].view(np.float32)
    misaligned[:] = np.arange(1024.0, dtype=np.float32)
    assert client.put_array(aligned, device).unsafe_buffer_pointer() == aligned.ctypes.data
    assert client.aliased(aligned) and not client.aliased(misaligned)
    transposed = aligned.reshape(32, 32).T  # (dense, but not row-major: copied)
    assert not client.aliased(transposed)
    assert not client.aliased(np.lib.stride_tricks.as_strided(  # (a length-1 axis's stride)
        aligned, shape=(1, 1024), strides=(8, 4)))
    assert client.aliased(aligned.reshape(1, 1024))
    assert client.put_array(transposed, device).unsafe_buffer_pointer() != aligned.ctypes.data
    copied = client.put_array(misaligned, device)
    assert copied.unsafe_buffer_pointer() % client.ALIGNMENT == 0
    assert copied.unsafe_buffer_pointer() != misaligned.ctypes.data
    np.testing.assert_array_equal(np.asarray(copied), misaligned)
    f = astjax.jit(lambda x, y: x * 2.0 + y, backend="xla")
    np.testing.assert_array_equal(f(misaligned, aligned), misaligned * 2.0)
    misaligned += 1.0
    np.testing.assert_array_equal(f(misaligned, aligned), misaligned * 2.0)


def test_lu_permutation_is_one_loop_not_one_pass_per_swap(capsys):
    """The row permutation of a batched LU (its pivots applied in turn) is one stablehlo.while:
    written out per swap, a 32x32 solve's module took XLA 1.4 s to compile."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 32, 32)) + 8 * np.eye(32)
    b = rng.standard_normal((4, 32, 2))
    np.testing.assert_allclose(astjax.jit(programs.batched_solve, backend="xla")(a, b),
                               np.linalg.solve(a, b), rtol=1e-10)
    astjax.show(programs.batched_solve, a, b, backend="xla")
    text = capsys.readouterr().out
    assert '"stablehlo.while"' in text and text.count('"stablehlo.reduce"') < 4


FIRST_CALLS_IN_THREADS = textwrap.dedent("""
    import sys, threading
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    from xla_cases import programs
    f = astjax.jit(programs.newton_sqrt, backend="xla")
    start, failed, values = threading.Barrier(4), [], []

    def calls():
        start.wait()
        try:
            values.extend(float(f(2.0)) for _ in range(5))
        except Exception as error:
            failed.append(repr(error))
    threads = [threading.Thread(target=calls) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    print(failed, len(values), all(abs(v - 2 ** 0.5) < 1e-6 for v in values))
""")


def test_threads_making_first_calls_at_once_share_one_client(tmp_path):
    """Four threads making a new process's first XLA calls together: one CPU client serves
    them (two clients' buffers and executables refuse each other)."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FIRST_CALLS_IN_THREADS.format(
        tests=os.path.dirname(__file__))], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "20", "True"], done.stdout + done.stderr[-2000:]


def test_the_cipher_is_one_loop_however_many_consumers(capsys):
    """threefry2x32 is a while loop of five trips of four rounds (as JAX lowers it on the CPU):
    its rounds written out were a chain of cheap operations that XLA copied into each of the
    16 slices' fusions here (JAX's mnist_vae example's grid of 100: 25 s to compile)."""
    key = astjax.random.PRNGKey(0)
    logits = np.linspace(-2.0, 2.0, 256).reshape(16, 16)
    got = astjax.jit(programs.sampled_image_grid, backend="xla")(key, logits)
    np.testing.assert_array_equal(got, programs.sampled_image_grid(key, logits))
    astjax.show(programs.sampled_image_grid, key, logits, backend="xla")
    text = capsys.readouterr().out
    assert text.count('"stablehlo.while"') == 1  # (the one call of the cipher)
    assert text.count('"stablehlo.shift_left"') < 10  # (four rounds written once, not 20)
