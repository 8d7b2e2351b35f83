"""Source before -> core form after: what the front end's desugaring and specialisation write."""
import os

import numpy as np

import astjax
from astjax.backends import numpy as numpy_backend
from astjax.core.files import cache_root
from tests.form_cases import sugar


def body(fn, *args, **kwargs) -> list:
    """The generated function's lines, without comments and the module header."""
    text = astjax.make_source(astjax.jit(fn, **kwargs), *args)
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("def "))
    return [l.split("  #")[0].rstrip() for l in lines[start:] if l.strip()]


def test_augmented_assignment():
    assert body(sugar.augmented, np.ones(2)) == [
        "def augmented(x):",
        "    x_1 = lax.add(x, 1.0)",
        "    x_2 = lax.mul(x_1, x_1)",
        "    return x_2",
    ]


def test_chained_comparison_is_a_conjunction():
    assert body(sugar.chained, np.ones(2), 0.0, 1.0) == [
        "def chained(x, lo, hi):",
        "    lt = lax.lt(lo, x)",
        "    le = lax.le(x, hi)",
        "    bitwise_and = lax.bitwise_and(lt, le)",
        "    return bitwise_and",
    ]


def test_methods_and_static_properties():
    assert body(sugar.methods, np.ones((2, 3))) == [
        "def methods(x):",
        "    x_dim1 = x.shape[1]",
        "    reduce_sum = lax.reduce_sum(x, axes=(0,))",
        "    add = lax.add(reduce_sum, x_dim1)",
        "    return add",
    ]


def test_local_item_assignment_becomes_a_functional_update():
    lines = body(sugar.update, np.ones(3))
    assert lines[1] == "    y = lax.mul(x, 2.0)"
    assert any("lax.scatter(y, 0, 5.0, axis=0, mode='set')" in l or "dynamic_update_slice" in l
               or "lax.scatter" in l for l in lines)
    np.testing.assert_allclose(astjax.jit(sugar.update)(np.ones(3)), [5.0, 3.0, 2.0])


def test_numpy_calls_stand_for_astjax_numpy():
    lines = body(sugar.plain_numpy, np.ones(2))
    assert lines[1] == "    sin = lax.sin(x)"
    assert "lax.convert(2.0, dtype='float64')" in lines[2] or "np.float64(2.0)" in "".join(lines)


def test_static_branch_leaves_no_cond():
    assert body(sugar.static_branch, np.ones((2, 2))) == [
        "def static_branch(x):",
        "    reduce_sum = lax.reduce_sum(x, axes=(1,))",
        "    return reduce_sum",
    ]
    assert body(sugar.static_branch, np.ones(2)) == ["def static_branch(x):", "    return x"]


def test_generated_module_is_written_atomically_and_a_corrupt_one_is_rebuilt():
    f = astjax.jit(sugar.augmented)
    f(np.ones(2))
    folder = os.path.join(cache_root(), "numpy")
    path = max((os.path.join(folder, n) for n in os.listdir(folder) if n.startswith("augmented")),
               key=os.path.getmtime)
    assert not [n for n in os.listdir(folder) if n.startswith(".tmp-")]
    with open(path, "w") as broken:
        broken.write("this is not python (\n")
    astjax.clear_caches()  # nothing in memory, only the file on disk
    fresh = astjax.jit(sugar.augmented)
    np.testing.assert_allclose(fresh(np.ones(2)), [4.0, 4.0])
    with open(path) as rebuilt:
        assert "def augmented(x):" in rebuilt.read()


def test_primitive_table_is_consistent():
    from astjax.core.table import PRIMITIVES
    for name, prim in PRIMITIVES.items():
        assert prim.name == name and callable(prim.impl) and callable(prim.abstract)
    assert numpy_backend.module_source  # the backend exposes the printed module


def test_shift_operators_on_arrays():
    x = np.arange(10, dtype=np.uint32)
    got = astjax.jit(sugar.shifts)(x)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, (x << 2) ^ (x >> 1))
