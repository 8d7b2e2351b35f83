"""Inputs that used to give silent wrong answers: extrema of nothing (NumPy raises; Numba
returned uninitialised memory, XLA the identity) and float16 on Numba."""
import os

import numpy as np
import pytest

import astjax
import reliability_cases as cases
from astjax.errors import AstjaxError, ConcretizationError, TransformError

BACKENDS = ["numpy", "numba", "xla"]


EMPTY = [(cases.largest, np.max, np.zeros(0)), (cases.where_largest, np.argmax, np.zeros(0)),
         (cases.row_smallest, lambda x: np.min(x, axis=1), np.zeros((3, 0)))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun, numpy_fun, x", EMPTY)
def test_extrema_of_nothing_raise_as_numpy_does(backend, fun, numpy_fun, x):
    with pytest.raises(ValueError):  # the oracle
        numpy_fun(x)
    with pytest.raises(AstjaxError) as info:
        astjax.jit(fun, backend=backend)(x)
    assert "reliability_cases.py:" in str(info.value)
    assert "empty" in str(info.value) or "zero-size" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_extrema_over_a_nonempty_axis_of_an_empty_array_are_empty(backend):
    out = astjax.jit(cases.column_largest, backend=backend)(np.zeros((3, 0)))
    assert np.asarray(out).shape == (0,)


def test_float16_on_numba_is_refused_with_the_line():
    with pytest.raises(TransformError) as info:
        astjax.jit(cases.half_precision, backend="numba")(np.ones(3, np.float16))
    assert "float16" in str(info.value) and "reliability_cases.py:" in str(info.value)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_float16_elsewhere_computes_in_float16(backend):
    x = np.linspace(0, 1, 5).astype(np.float16)
    out = astjax.jit(cases.half_precision, backend=backend)(x)
    assert np.asarray(out).dtype == np.float16
    np.testing.assert_allclose(np.asarray(out, np.float64), np.sin(x) * 2, rtol=2e-3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_user_names_never_collide_with_generated_ones(backend):
    x = np.ones(3)
    want = ((x * 2 + np.arange(3.0)) * 2 + 1 + 1.5) * np.arange(3.0) + 1
    np.testing.assert_allclose(astjax.jit(cases.generated_names, backend=backend)(x), want)


def test_recursion_bounded_by_static_arguments_is_unrolled():
    fn = cases.power_by_recursion
    np.testing.assert_allclose(astjax.jit(fn, static_argnums=1)(np.float64(1.01), 30),
                               1.01 ** 30, rtol=1e-14)
    np.testing.assert_allclose(astjax.grad(lambda x: fn(x, 7))(1.5), 7 * 1.5 ** 6, rtol=1e-14)
    assert astjax.jit(cases.halving_sum, static_argnums=(1, 2))(np.arange(100.0), 0, 100) == 4950
    with pytest.raises(ConcretizationError, match="recursed 40 deep"):
        astjax.jit(fn, static_argnums=1)(np.float64(1.01), 60)


def test_recursion_on_array_values_is_refused_at_the_call():
    with pytest.raises(ConcretizationError, match="same static arguments") as info:
        astjax.jit(cases.runaway)(np.float64(3.0))
    assert info.value.loc.line == cases.runaway.__code__.co_firstlineno + 2


def _big_program() -> str:
    lines = ["import numpy as np", "", "", "def chain(x):", "    y = x",
             "    if x[0] > 0:", "        y = y + 1.0"]
    for i in range(110):  # an elif chain past Python's 100 levels of indentation
        lines += [f"    elif x[0] > {i}:", f"        y = y + {i}.0"]
    lines += ["    return y", "", "", "def deep(x):", "    y = x"]
    indent = "    "
    for i in range(60):  # ifs nested 60 deep
        lines.append(f"{indent}if x[{i % 3}] > {i - 30}:")
        indent += "    "
    lines += [f"{indent}y = y * 2.0", "    return y", "", "",
              "def long_sum(x):",
              "    return " + " + ".join(f"x[{i % 3}] * {i % 7}.0" for i in range(600))]
    return "\n".join(lines) + "\n"


def test_big_programs_compile(tmp_path, monkeypatch):
    """Depth that comes from user code (a 110-branch elif chain, 60 nested ifs, a 600-term
    sum) compiles, and gives what Python computes."""
    (tmp_path / "big_program.py").write_text(_big_program())
    monkeypatch.syspath_prepend(str(tmp_path))
    import big_program
    for name in ("chain", "deep", "long_sum"):
        fn = getattr(big_program, name)
        for x in (np.array([1.0, 40.0, -3.0]), np.array([-50.0, 2.0, 7.0])):
            np.testing.assert_allclose(astjax.jit(fn)(x), fn(x), rtol=1e-12, err_msg=name)


def test_the_numpy_backend_releases_large_values_after_their_last_use():
    """Peak memory of a 7-step chain on 80 MB: the input, the output and about one value in
    flight (it was every intermediate at once)."""
    import subprocess
    import sys
    import textwrap
    program = textwrap.dedent("""\
        import resource, numpy as np, astjax, reliability_cases as cases
        x = np.ones(20_000_000, np.float32)
        fn = astjax.jit(cases.elementwise_chain, backend="numpy")
        fn(np.ones(1000, np.float32))  # compile on a small input first
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = fn(x)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
        """)
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [here, os.path.dirname(here), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    growth_mb = float(proc.stdout.strip().splitlines()[-1])
    assert growth_mb < 3.2 * 76.3, growth_mb  # 7 intermediates of 76 MB before
