"""Source passes, each checked as source before -> source after, and for equal results."""
import importlib.util
import textwrap

import libcst as cst
import numpy as np
import pytest

import astjax
from astjax.frontend.source import parse_file
from astjax.rewriters.source.pipeline import rewrite_function


def rewrite(tmp_path, source: str) -> str:
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    parsed = parse_file(str(path))
    fn = parsed.module.body[0]
    node, _ = rewrite_function(fn, parsed.positions)
    return cst.Module([node]).code


def test_break_becomes_a_flag_in_the_loop_test(tmp_path):
    out = rewrite(tmp_path, """\
        def f(x):
            while x < 10:
                if x > 5:
                    break
                x = x + 1
            return x
        """)
    assert out == textwrap.dedent("""\
        def f(x):
            _break_2 = False
            while not _break_2 and (x < 10):
                if x > 5:
                    _break_2 = True
                if not _break_2:
                    x = x + 1
            return x
        """)


def test_continue_resets_each_iteration_and_guards_the_rest(tmp_path):
    out = rewrite(tmp_path, """\
        def f(xs):
            t = 0.0
            for x in xs:
                if x > 0:
                    continue
                t = t + x
            return t
        """)
    assert "_continue_3 = False\n        if x > 0:\n            _continue_3 = True" in out
    assert "if not _continue_3:\n            t = t + x" in out


def test_for_with_break_skips_the_body_once_set(tmp_path):
    out = rewrite(tmp_path, """\
        def f(xs):
            for x in xs:
                if x > 0:
                    break
            else:
                x = 0
            return x
        """)
    assert "_break_2 = False\n    for x in xs:\n        if not _break_2:" in out
    assert "if not _break_2:\n        x = 0" in out  # the else clause runs when no break


def test_early_return_moves_the_rest_into_the_else(tmp_path):
    out = rewrite(tmp_path, """\
        def f(x):
            if x > 0:
                return x
            y = x * 2
            return y
        """)
    assert out == textwrap.dedent("""\
        def f(x):
            if x > 0:
                _return_value = x
            else:
                y = x * 2
                _return_value = y
            return _return_value
        """)


def test_function_without_early_return_is_unchanged(tmp_path):
    source = "def f(x):\n    y = x + 1\n    return y\n"
    assert rewrite(tmp_path, source) == source


def first_line_of(fn):
    return fn.__code__.co_firstlineno


def _early(x):
    if x > 1.0:
        return x * 2.0
    elif x < -1.0:
        return -x
    y = x + 1.0
    return y * y


def _loops(x):
    i = 0
    total = x * 0.0
    while i < 20:
        i = i + 1
        if x * i > 30.0:
            break
        if x * i < 3.0:
            continue
        total = total + x * i
    return total, i


@pytest.mark.parametrize("value", [-3.0, -0.5, 0.0, 0.7, 2.5, 9.0])
def test_rewritten_functions_equal_eager_python(value):
    x = np.float64(value)
    assert astjax.jit(_early)(x) == pytest.approx(_early(value))
    total, i = astjax.jit(_loops)(x)
    want_total, want_i = _loops(value)
    assert total == pytest.approx(want_total) and int(i) == want_i


def test_rewritten_code_still_reports_user_lines():
    f = astjax.jit(_loops)
    f(np.float64(1.0))
    line = first_line_of(_loops)
    assert f"test_rewriters.py:{line + 5}" in f.source  # the `if x * i > 30.0:` line


def _find_first(xs, threshold):
    for x in xs:
        if x > threshold:
            return x * 10.0
    return -1.0


def _search(x):
    i = 0
    while i < 50:
        x = x * 1.5
        if x > 20.0:
            return x, i
        i = i + 1
    return x * 0.0, -1


@pytest.mark.parametrize("threshold", [-1.0, 0.3, 0.8, 5.0])
def test_return_inside_a_scan_loop(threshold):
    xs = np.array([0.1, 0.5, 0.9, 0.2])
    f = astjax.jit(_find_first)
    assert f(xs, np.float64(threshold)) == pytest.approx(_find_first(xs, threshold))
    assert "lax.scan(" in f.source


@pytest.mark.parametrize("start", [0.001, 1.0, 19.0, 25.0])
def test_return_inside_a_while_loop(start):
    f = astjax.jit(_search)
    x, i = f(np.float64(start))
    want_x, want_i = _search(start)
    assert x == pytest.approx(want_x) and int(i) == want_i


def _while_else(x):
    while x < 10.0:
        x = x * 2.0
    else:
        x = x + 0.5
    return x


def _for_else_break(xs, threshold):
    found = xs[0] * 0.0
    for v in xs:
        if v > threshold:
            found = v
            break
    else:
        found = found - 1.0
    return found


@pytest.mark.parametrize("start", [0.3, 20.0])
def test_while_else_on_array_condition(start):
    assert astjax.jit(_while_else)(np.float64(start)) == pytest.approx(_while_else(start))


@pytest.mark.parametrize("threshold", [0.2, 5.0])
def test_for_else_with_break_over_an_array(threshold):
    xs = np.array([0.1, 0.5, 0.9])
    got = astjax.jit(_for_else_break)(xs, np.float64(threshold))
    assert got == pytest.approx(_for_else_break(xs, threshold))


def test_show_passes_prints_the_source_after_each_pass(tmp_path, capsys):
    path = tmp_path / "passes.py"
    path.write_text(textwrap.dedent("""
        def f(x):
            for i in range(3):
                if x > 2.0:
                    break
                x = x * 2.0
            return x
    """))
    spec = importlib.util.spec_from_file_location("passes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    astjax.show_passes(module.f)
    out = capsys.readouterr().out
    assert "# after LoopFlags" in out and "# after SingleReturn" in out
    assert "_break_" in out.split("# after SingleReturn")[0]
