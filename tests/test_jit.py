"""jit: per-signature caching, recompilation reasons, stale globals, static arguments, pytrees."""
import functools
import importlib
import logging

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError, SourceUnavailableError, StaticArgumentError
from tests.jit_cases import globals_case as case


def compiles(caplog) -> list:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("compiling")]


def test_result_equals_eager_and_is_cached(caplog):
    caplog.set_level(logging.INFO, logger="astjax")
    f = astjax.jit(case.scaled)
    x = np.linspace(-1, 1, 3)
    np.testing.assert_allclose(f(x), case.scaled(x))
    f(x + 1.0)
    assert len(compiles(caplog)) == 1
    f(x.astype(np.float32))
    assert len(compiles(caplog)) == 2 and "first call with this signature" in compiles(caplog)[-1]


def test_changed_global_scalar_recompiles(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="astjax")
    f = astjax.jit(case.scaled)
    x = np.ones(3)
    before = f(x)
    monkeypatch.setattr(case, "SCALE", 5.0)
    after = f(x)
    np.testing.assert_allclose(after - before, 3.0 * x)
    assert "'SCALE' changed" in compiles(caplog)[-1]


def test_rebound_helper_is_seen(monkeypatch):
    f = astjax.jit(case.scaled)
    x = np.ones(3)
    f(x)
    monkeypatch.setattr(case, "helper", lambda v: v * 0.0)
    np.testing.assert_allclose(f(x), case.TABLE)


def test_global_array_is_read_at_every_call(monkeypatch):
    f = astjax.jit(case.scaled)
    x = np.ones(3)
    f(x)
    monkeypatch.setattr(case, "TABLE", np.full(3, 10.0))
    np.testing.assert_allclose(f(x), 2.0 + 10.0)


def test_static_arguments_specialise_by_value(caplog):
    caplog.set_level(logging.INFO, logger="astjax")
    f = astjax.jit(case.with_static, static_argnums=1, static_argnames="mode")
    x = np.array([1.0, -3.0])
    assert f(x, 2) == pytest.approx(case.with_static(x, 2))
    assert f(x, 3, mode="max") == pytest.approx(case.with_static(x, 3, mode="max"))
    assert f(x, 2) == pytest.approx(case.with_static(x, 2))
    assert len(compiles(caplog)) == 2
    assert "lax.scan" not in f.source and "lax.while" not in f.source  # static loop unrolled


def test_unhashable_static_argument_is_a_clear_error():
    f = astjax.jit(case.with_static, static_argnums=1)
    with pytest.raises(StaticArgumentError, match="unhashable list"):
        f(np.ones(2), [1, 2])


def test_non_array_dynamic_argument_is_a_clear_error():
    f = astjax.jit(case.with_static)
    with pytest.raises(StaticArgumentError, match="static_argnums"):
        f(np.ones(2), 2, mode=object())


def test_pytrees_in_and_out():
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((3, 4)), "b": rng.standard_normal(4)}
    x = rng.standard_normal((5, 3))
    got, (rows, none) = astjax.jit(case.pytree_fn)(params, x)
    want, _ = case.pytree_fn(params, x)
    np.testing.assert_allclose(got["out"], want["out"])
    np.testing.assert_allclose(got["norm"], want["norm"])
    assert rows == 5 and none is None


def test_generated_source_is_readable_python():
    f = astjax.jit(case.scaled)
    f(np.ones(3))
    source = f.source
    compile(source, "<generated>", "exec")
    assert "def scaled(x, TABLE):" in source
    assert "# globals_case.py:11  return x * SCALE" in source  # the helper's line
    assert "lax.mul(x, 2.0)" in source


def test_function_without_source_is_a_clear_error():
    namespace = {}
    exec("def f(x):\n    return x + 1\n", namespace)
    with pytest.raises(SourceUnavailableError, match="no source"):
        astjax.jit(namespace["f"])(np.ones(2))


def test_errors_point_at_user_line():
    def bad(x):
        y = x + 1.0
        return y.reshape(7)
    with pytest.raises(AstjaxError) as info:
        astjax.jit(bad)(np.ones(3))
    assert f"test_jit.py:{bad.__code__.co_firstlineno + 2}" in str(info.value)
    assert "reshape" in str(info.value)


def test_make_source_for_example_arguments():
    jitted = astjax.jit(case.with_static, static_argnums=1)
    text = astjax.make_source(jitted, np.ones(2, np.float32), 1)
    assert "def with_static(x):" in text  # static and string arguments are not parameters
    dynamic_n = astjax.make_source(case.with_static, np.ones(2, np.float32), 3)
    assert "def with_static(x, n):" in dynamic_n and "lax.while_loop" in dynamic_n


def test_repeat_calls_on_plain_arrays_skip_argument_binding(monkeypatch):
    jit_module = importlib.import_module("astjax.compiled")

    def scale(x, y):
        return x * y + 1.0
    f = astjax.jit(scale)
    x32, x64 = np.ones(3, np.float32), np.ones(3)
    f(x32, x32), f(x64, x64)

    def no_binding(*args, **kwargs):
        raise AssertionError("a repeat call bound its arguments again")
    monkeypatch.setattr(jit_module, "split_arguments", no_binding)
    assert f(x32, 2 * x32).dtype == np.float32          # each signature finds its own entry
    np.testing.assert_array_equal(f(x64, 3 * x64), np.full(3, 4.0))
    with pytest.raises(AssertionError, match="bound its arguments"):
        f(np.ones(4), np.ones(4))                         # a new shape takes the full path


def test_repeat_calls_on_containers_of_arrays_skip_argument_binding(monkeypatch):
    """Arrays in dicts, tuples, lists and None (a model's parameters) take the fast path too;
    a container of another kind, or other keys or shapes, is a different call."""
    jit_module = importlib.import_module("astjax.compiled")

    def affine(params, xs):
        a, b = xs
        return {"y": a @ params["w"] + params["b"], "z": b * 2.0}
    f = astjax.jit(affine)
    rng = np.random.default_rng(0)
    params = {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}
    a, b = rng.standard_normal((4, 3)), rng.standard_normal(5)
    f(params, (a, b)), f(params, [a, b])

    def no_binding(*args, **kwargs):
        raise AssertionError("a repeat call bound its arguments again")
    monkeypatch.setattr(jit_module, "split_arguments", no_binding)
    for xs in ((a, b), [a, b]):
        out = f(params, xs)
        np.testing.assert_allclose(out["y"], a @ params["w"] + params["b"])
        np.testing.assert_allclose(out["z"], b * 2.0)
    for other in ({"w": params["w"], "b": params["b"][:1]},           # another shape
                  {"w": params["w"], "c": params["b"]},               # another key
                  {"w": params["w"], "b": 1.5}):                      # a Python scalar
        with pytest.raises(AssertionError, match="bound its arguments"):
            f(other, (a, b))


def test_repeat_calls_with_scalars_skip_argument_binding(monkeypatch):
    """A NumPy scalar or a Python number beside the arrays (a step size, a count) takes the
    fast path too, keyed by its dtype or its type: each value reaches the compiled code."""
    jit_module = importlib.import_module("astjax.compiled")

    def step(x, lr, n):
        return x - lr * x * n
    f = astjax.jit(step)
    x = np.linspace(1.0, 2.0, 3, dtype=np.float32)
    f(x, np.float32(0.5), 2), f(x, 0.5, 2), f(x, 0.5, True)

    def no_binding(*args, **kwargs):
        raise AssertionError("a repeat call bound its arguments again")
    monkeypatch.setattr(jit_module, "split_arguments", no_binding)
    for lr, n in ((np.float32(0.25), 3), (0.125, 5), (0.75, False), (0.75, True)):
        out = f(x, lr, n)
        assert out.dtype == np.float32  # (a Python number is weakly typed)
        np.testing.assert_allclose(out, x - np.float32(lr) * x * n, rtol=1e-6)
    for lr, n in ((np.float64(0.5), 2), (np.float32(0.5), np.int32(2))):  # other dtypes
        with pytest.raises(AssertionError, match="bound its arguments"):
            f(x, lr, n)


def test_the_fast_path_notices_a_changed_global(monkeypatch):
    f = astjax.jit(case.scaled)
    x = np.ones(3)
    f(x)
    np.testing.assert_array_equal(f(x), x * 2.0 + np.arange(3.0))  # served by the fast path
    monkeypatch.setattr(case, "SCALE", 10.0)
    np.testing.assert_array_equal(f(x), x * 10.0 + np.arange(3.0))


def test_operators_work_when_only_astjax_is_imported(tmp_path):
    """`import astjax` alone (no astjax.numpy in the program) still gives arrays their
    operators while a function is compiled."""
    import subprocess
    import sys
    program = tmp_path / "only_astjax.py"
    program.write_text("import numpy as np\nimport astjax\n\n\ndef f(x):\n    return x ** 2 + 1\n\n\n"
                       "print(float(astjax.jit(f)(np.float64(3.0))))\n")
    done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "10.0"


def _sgd_step(w, g):
    return w - 0.1 * g


def test_jax_jit_options_are_accepted():
    """JAX programs pass donation, placement and sharding options: accepted, and the
    results are the function's (astjax never writes into its arguments)."""
    w, g = np.arange(3.0), np.ones(3)
    for options in ({"donate_argnums": (0,)}, {"donate_argnames": ("w",)},
                    {"keep_unused": True, "inline": True, "device": None},
                    {"in_shardings": None, "out_shardings": None}):
        step = functools.partial(astjax.jit, **options)(_sgd_step)
        np.testing.assert_allclose(step(w, g), w - 0.1 * g)
    np.testing.assert_allclose(w, np.arange(3.0))  # a donated argument is left as it was
