"""Symbolic sizes: one specialisation serves every length, unless the program inspects a size;
then the fact it relied on is recorded, checked at every call, and a size that breaks it gets
a specialisation of its own (logged with the fact), never a wrong answer."""
import logging

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.core.dims import DimExpr, Facts, Symbol, by_size, recording
from astjax.errors import ShapeError


@pytest.fixture
def compilations(caplog):
    """The messages of the compilations logged while a test runs."""
    caplog.set_level(logging.INFO, logger="astjax")
    astjax.clear_caches()  # (other tests compile the same functions)
    return lambda: [r.getMessage() for r in caplog.records if r.getMessage().startswith("compiling")]


def mlp_loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


def test_many_lengths_one_specialisation(compilations):
    grad = astjax.jit(astjax.grad(mlp_loss))
    w = np.linspace(-1, 1, 12).reshape(4, 3)
    for n in range(2, 202):
        x = np.cos(np.arange(n * 4.0)).reshape(n, 4)
        got = grad(w, x)
        if n % 50 == 2:  # the answer is right at every size (central differences)
            want = _central_difference(lambda w: float(np.mean(np.tanh(x @ w) ** 2)), w)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    assert len(compilations()) == 1, compilations()


def _central_difference(f, w, eps=1e-6):
    out = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = eps
        out[i] = (f(w + e) - f(w - e)) / (2 * eps)
    return out


def test_generated_code_reads_sizes_from_its_arguments():
    source = astjax.make_source(astjax.grad(mlp_loss), np.ones((4, 3)), np.ones((5, 4)))
    assert "x_dim0 = x.shape[0]" in source
    assert "(5," not in source  # no size of the example is baked in


def shape_test(x):
    if x.shape[0] > 3:
        return x * 2.0
    return x + 1.0


def unrolled(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + x[i] * i
    return total


def halves(x):
    return x.reshape(2, -1).sum(axis=0)


@pytest.mark.parametrize("fun, serves, breaks, fact", [
    (shape_test, [4, 5, 9], 2, "x.shape[0] > 3"),
    (unrolled, [4, 4], 5, "x.shape[0] == 4"),
    (halves, [6, 6], 8, "x.shape[0] == 6"),
])
def test_a_recorded_fact_is_checked_at_every_call(compilations, fun, serves, breaks, fact):
    f = astjax.jit(fun)
    for n in serves:
        np.testing.assert_allclose(f(np.arange(n, dtype=float)), _eager(fun, n))
    assert len(compilations()) == 1
    np.testing.assert_allclose(f(np.arange(breaks, dtype=float)), _eager(fun, breaks))
    messages = compilations()
    assert len(messages) == 2 and f"`{fact}`" in messages[1], messages


def _eager(fun, n):
    return fun(np.arange(n, dtype=float))


def add(x, y):
    return x + y


def test_broadcasting_two_sizes_is_a_checked_assumption():
    f = astjax.jit(add)
    np.testing.assert_array_equal(f(np.ones(3), np.ones(3)), 2 * np.ones(3))
    np.testing.assert_array_equal(f(np.ones(4), np.ones(4)), 2 * np.ones(4))
    with pytest.raises(ShapeError, match=r"test_shape_polymorphism\.py:\d+") as info:
        f(np.ones(3), np.ones(4))
    assert "do not broadcast" in str(info.value)


def test_sizes_of_zero_and_one_select_their_own_specialisation(compilations):
    f = astjax.jit(add)
    assert f(np.ones(1), np.ones(5)).shape == (5,)   # 1 broadcasts
    assert f(np.ones(5), np.ones(5)).shape == (5,)
    assert f(np.ones(0), np.ones(0)).shape == (0,)
    assert len(compilations()) == 3


def test_a_returned_size_is_computed_at_run_time():
    f = astjax.jit(lambda x: (x.sum(), x.shape[0]))
    assert f(np.ones(3))[1] == 3
    assert f(np.ones(7))[1] == 7


def test_polymorphism_can_be_turned_off(monkeypatch, compilations):
    monkeypatch.setenv("ASTJAX_SHAPE_POLYMORPHISM", "0")
    f = astjax.jit(add)
    f(np.ones(3), np.ones(3))
    f(np.ones(4), np.ones(4))
    assert len(compilations()) == 2
    g = astjax.jit(astjax.grad(lambda x: jnp.mean(x * x)))
    assert "x.shape[0]" not in astjax.make_source(g, np.ones(5))  # the size is baked in


def test_algebra_decides_what_holds_for_every_size():
    n = DimExpr.of(Symbol("x.shape[0]", "x_dim0", 8))
    m = DimExpr.of(Symbol("y.shape[0]", "y_dim0", 8))
    facts = Facts()
    with recording(facts):
        assert n > 1 and n >= 2 and n + 1 > n and (n * m) // m == n and n - n == 0
        assert facts.items == []                      # all provable: nothing recorded
        assert n == m                                  # true for these sizes only
        assert int(n) == 8
    assert [str(f) for f in facts.items] == ["x.shape[0] == y.shape[0]", "x.shape[0] == 8"]
    assert facts.items[0].check({}) and not facts.items[0].check({n.symbols().pop(): 3})


def test_a_choice_by_size_class_is_marked_and_a_fact_relied_on_is_not():
    """by_size's facts are choices (code made with them is right for every size); the same
    comparison asked outright is relied on, and that wins over the choice."""
    n = DimExpr.of(Symbol("x.shape[0]", "x_dim0", 8))
    facts = Facts(where=lambda: "here")
    with recording(facts):
        assert by_size(lambda: n * 4 < 64) and not by_size(lambda: n > 100)
        assert [(str(f), f.choice, f.where) for f in facts.items] == [
            ("4 * x.shape[0] < 64", True, "here"), ("not (x.shape[0] > 100)", True, "here")]
        assert n * 4 < 64
    assert [(str(f), f.choice) for f in facts.items] == [
        ("4 * x.shape[0] < 64", False), ("not (x.shape[0] > 100)", True)]
    with recording(Facts(choices=False)) as ahead:
        assert by_size(lambda: n < 64)
    assert ahead.items == []


def test_numba_compiles_once_for_many_lengths(compilations):
    """The Numba kernel reads its sizes from its arguments: 200 batch sizes, one compilation
    (a size class the emitter chose by, e.g. BLAS or a loop, holds for all of them)."""
    grad = astjax.jit(astjax.grad(mlp_loss), backend="numba")
    reference = astjax.jit(astjax.grad(mlp_loss), backend="numpy")
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((64, 32)) * 0.1).astype(np.float32)
    for n in range(3, 203):
        x = rng.standard_normal((n, 64)).astype(np.float32)
        got = grad(w, x)
        if n % 40 == 3:
            np.testing.assert_allclose(got, reference(w, x), rtol=2e-4, atol=1e-6)
    entries = [e for entries in grad._shared.cache.values() for e in entries]
    assert len(entries) == 1, [str(f) for e in entries for f in e.facts.items]
    (entry,) = entries
    assert len(entry._calls) == 1  # one generated module
    assert len(entry.call.kernel.overloads) == 1  # one machine-code specialisation in Numba


def gates(z, c):
    """An LSTM cell's gates: one product's output split in four along a symbolic size."""
    i, f, g, o = jnp.split(z, 4, axis=-1)
    c = astjax.nn.sigmoid(f) * c + astjax.nn.sigmoid(i) * jnp.tanh(g)
    return jnp.sum(astjax.nn.sigmoid(o) * jnp.tanh(c))


def _gates_np(z, c):
    i, f, g, o = np.split(z, 4, axis=-1)
    sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
    c = sig(f) * c + sig(i) * np.tanh(g)
    return np.sum(sig(o) * np.tanh(c))


def test_split_in_sections_of_a_symbolic_size(compilations):
    """jnp.split into sections divides a symbolic length (relied on as a fact); an uneven
    division is the same clear error as on concrete sizes."""
    rng = np.random.default_rng(0)
    z, c = rng.standard_normal((3, 8)), rng.standard_normal((3, 2))
    np.testing.assert_allclose(astjax.jit(gates)(z, c), _gates_np(z, c), rtol=1e-12)
    want = _central_difference(lambda v: float(_gates_np(v, c)), z)
    np.testing.assert_allclose(astjax.jit(astjax.grad(gates))(z, c), want, rtol=1e-6, atol=1e-9)
    z2, c2 = rng.standard_normal((5, 12)), rng.standard_normal((5, 3))  # other sizes
    np.testing.assert_allclose(astjax.jit(gates)(z2, c2), _gates_np(z2, c2), rtol=1e-12)
    with pytest.raises(ShapeError, match="equal division"):
        astjax.jit(lambda v: jnp.split(v, 4, axis=-1)[0])(np.ones((2, 6)))
