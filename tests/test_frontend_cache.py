"""The front end's result on disk: a new process skips the front end for an unchanged
function, and never uses an entry whose function, or anything it read, changed."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import astjax.numpy as jnp

HERE = os.path.dirname(os.path.abspath(__file__))
ALL = ["body_constant", "calls_helper", "closure", "grad", "reads_array",
       "reads_class_attribute", "reads_global", "reads_module_attribute", "reads_object"]


@pytest.fixture
def program(tmp_path):
    for name in ("frontend_cache_program.py", "frontend_cache_helper.py"):
        shutil.copy(os.path.join(HERE, name), tmp_path / name)
    cache = tmp_path / "cache"

    def run(a: float, b: float) -> dict:
        env = dict(os.environ, ASTJAX_CACHE_DIR=str(cache), ASTJAX_BACKEND="numpy",
                   PYTHONPATH=os.pathsep.join([str(tmp_path)] + [p for p in [
                       os.environ.get("PYTHONPATH")] if p]))
        env.pop("ASTJAX_FRONTEND_CACHE", None)
        out = subprocess.run([sys.executable, str(tmp_path / "frontend_cache_program.py"),
                              str(a), str(b)], env=env, capture_output=True, text=True,
                             timeout=300, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    run.folder, run.cache = tmp_path, cache
    return run


def expected(a: float, b: float, two=2.0, shift=3.0) -> dict:
    x = np.linspace(0.5, 1.5, 4)
    return {"body_constant": np.sum(x * two), "reads_module_attribute": np.sum(x) * a,
            "reads_global": np.sum(x) + b, "closure": np.sum(x ** 2) * b,
            "reads_object": np.sum(x) ** a, "calls_helper": np.sum(x) - shift + 1.0,
            "grad": 2 * np.tanh(x) * (1 - np.tanh(x) ** 2),
            "reads_array": np.sum(np.arange(int(a) + 1.0)) * np.sum(x),
            "reads_class_attribute": np.sum(x) * b}


def check(got: dict, want: dict) -> None:
    for name, value in want.items():
        np.testing.assert_allclose(got["results"][name], value, rtol=1e-12, err_msg=name)


def edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_an_unchanged_function_skips_the_front_end_in_a_new_process(program):
    first = program(2.0, 5.0)
    check(first, expected(2.0, 5.0))
    assert len(first["frontend"]) == len(ALL), first["frontend"]
    second = program(2.0, 5.0)
    check(second, expected(2.0, 5.0))
    # An object's attribute has no description across processes: that one is never kept.
    assert second["frontend"] == ["reads_object"], second["frontend"]


def test_values_read_at_run_time_are_read_again(program):
    program(2.0, 5.0)
    # a module's and a class's attribute, a global, a closure cell, an object, an array's size
    changed = program(3.0, 6.0)
    check(changed, expected(3.0, 6.0))
    assert changed["frontend"] == ["closure", "reads_array", "reads_class_attribute",
                                   "reads_global", "reads_module_attribute", "reads_object"], \
        changed["frontend"]


def test_an_edited_file_is_compiled_again(program):
    program(2.0, 5.0)
    edit(program.folder / "frontend_cache_helper.py", "SHIFT = 3.0", "SHIFT = 4.0")
    got = program(2.0, 5.0)
    check(got, expected(2.0, 5.0, shift=4.0))
    # (the two that read the module; and the object's reader, never kept)
    assert got["frontend"] == ["calls_helper", "reads_module_attribute", "reads_object"], \
        got["frontend"]
    edit(program.folder / "frontend_cache_program.py", "x * 2.0", "x * 2.5")
    got = program(2.0, 5.0)
    check(got, expected(2.0, 5.0, two=2.5, shift=4.0))
    assert len(got["frontend"]) == len(ALL), got["frontend"]  # (its file changed)


def test_corrupt_entries_are_ignored_and_rewritten(program):
    program(2.0, 5.0)
    entries = list((program.cache / "frontend").iterdir())
    assert len(entries) == len(ALL) - 1  # (all but the object's reader)
    for k, entry in enumerate(entries):
        entry.write_bytes(b"" if k % 2 else b"\x80\x05garbage")
    got = program(2.0, 5.0)
    check(got, expected(2.0, 5.0))
    assert len(got["frontend"]) == len(ALL)
    assert program(2.0, 5.0)["frontend"] == ["reads_object"]


def test_library_closures_holding_other_values_do_not_share_an_entry():
    """Library code runs as Python (what it reads goes unrecorded): its closures are told
    apart by what their cells hold. Two SGD updates differ only in their step size."""
    import astjax
    from astjax.example_libraries import optimizers
    x, g = {"w": np.ones(3)}, {"w": np.full(3, 0.5)}
    for step_size in (0.1, 0.2, 0.1):
        astjax.clear_caches()  # (only the disk may serve the second and third)
        init, update, get = optimizers.sgd(step_size)
        out = get(astjax.jit(update)(0, g, init(x)))
        np.testing.assert_allclose(out["w"], 1.0 - step_size * 0.5, rtol=1e-12)


def _scaled(x):
    return x * 2.0 + jnp.sum(x)


def test_an_entry_from_disk_takes_the_calls_sizes_as_its_witnesses(monkeypatch):
    """Code generators choose by the witness sizes (a serial or a parallel loop, say): an
    entry made for one length serves another of its class as if made for that one."""
    import astjax
    import astjax.compiled
    astjax.clear_caches()
    astjax.jit(_scaled)(np.arange(6.0))
    astjax.clear_caches()
    runs = []
    real = astjax.compiled.specialize
    monkeypatch.setattr(astjax.compiled, "specialize",
                        lambda *a, **k: runs.append(1) or real(*a, **k))
    f = astjax.jit(_scaled)
    np.testing.assert_allclose(f(np.arange(10.0)), np.arange(10.0) * 2.0 + 45.0)
    assert runs == []  # from disk
    (symbol, _, _), = f.last.sizes
    assert symbol.witness == 10


def _tanh_loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


def _all_vars(func):
    from astjax.core.ir import Var, sub_funcs
    for eqn in func.eqns:
        yield from (v for v in eqn.outs + eqn.ins if isinstance(v, Var))
        for sub in sub_funcs(eqn):
            yield from _all_vars(sub)
    yield from func.params


def test_values_read_from_disk_take_ids_of_this_process(monkeypatch):
    """Passes key their tables by a value's id: an entry written by another process, whose
    ids this one may have given to other values, takes new ids when it is read (with the
    writer's ids, a gradient read back after other compiles failed on Numba)."""
    import itertools
    import astjax
    from astjax.core import dims, ir
    astjax.clear_caches()
    w, x = np.linspace(-1.0, 1.0, 12).reshape(4, 3), np.linspace(0.0, 2.0, 20).reshape(5, 4)
    monkeypatch.setattr(ir, "_ids", itertools.count(10**6))  # the writer: many values made
    first = astjax.jit(astjax.grad(_tanh_loss), backend="numpy")
    want = first(w, x)
    written = {v.id for v in _all_vars(first.last.spec.func)}
    astjax.clear_caches()
    monkeypatch.setattr(ir, "_ids", itertools.count(0))  # a process that has made few values
    f = astjax.jit(astjax.grad(_tanh_loss), backend="numpy")
    np.testing.assert_allclose(f(w, x), want, rtol=1e-12)
    loaded = list(_all_vars(f.last.spec.func))
    assert max(v.id for v in loaded) < min(written)  # renumbered, not the writer's
    assert len({v.id for v in loaded}) == len({id(v) for v in loaded})
    for v in f.last.spec.func.params:  # symbolic sizes: structure keys of the new ids
        for d in v.aval.shape:
            if isinstance(d, dims.DimExpr) and len(d.terms) == 1:
                (monomial, coeff), = d.terms.items()
                if coeff == 1 and len(monomial) == 1:
                    assert d.key == dims.DimExpr.of(monomial[0]).key
