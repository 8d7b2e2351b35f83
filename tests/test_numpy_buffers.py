"""The NumPy backend writes a ufunc's result over a dead array (`out=`) instead of a fresh one.

The oracle is the same core form printed without reuse. With every value counted as large
(so released after its last read, and open to reuse), each corpus case, its gradient and its
batched form give the same values either way; the reuse is seen in the printed source, and it
never writes over what the caller passed in, a constant, or a value something else still reads.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends import numpy as numpy_backend
from astjax.core import printer
from astjax.tree_util import tree_leaves
from corpus import CASES
from corpus.checks import assert_trees_match
from test_numba_backend import corpus_args
from test_numba_corpus import _first_float, total_of


def _core(fun, args, static=()):
    form = astjax.make_jaxpr(fun, static_argnums=static)(*args)
    leaves = [np.asarray(x) for i, a in enumerate(args) if i not in static
              for x in tree_leaves(a)]
    if len(form.func.params) != len(leaves):  # (jit binds those as constants; this does not)
        pytest.skip("reads an array from outside the function")
    return form.func, leaves


def _run_both(func, leaves, monkeypatch):
    """(reusing run, plain run, reusing source); the arguments are checked untouched."""
    monkeypatch.setattr(printer, "RELEASE_BYTES", 0)  # (every value open to reuse)
    before = [x.copy() for x in leaves]
    reusing = numpy_backend.compile_func(func)(*[x.copy() for x in leaves])
    source, _ = printer.print_func(func, reuse_buffers=True)
    plain_source, consts = printer.print_func(func)
    namespace = {"np": np, "lax": numpy_backend.runtime.lax, **consts}
    exec(compile(plain_source, "<plain>", "exec"), namespace)
    plain = namespace[func.name](*leaves)
    for a, b in zip(leaves, before):
        np.testing.assert_array_equal(a, b)
    return reusing, plain, source


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_corpus_case_gives_the_same_values_reusing_buffers(case, monkeypatch):
    args = corpus_args(case, case.dtypes[0])
    func, leaves = _core(case.fun, args, case.static_argnums)
    reusing, plain, _ = _run_both(func, leaves, monkeypatch)
    assert_trees_match(reusing, plain)


@pytest.mark.parametrize("case", [c for c in CASES if c.differentiable],
                         ids=[c.name for c in CASES if c.differentiable])
def test_each_corpus_gradient_gives_the_same_values_reusing_buffers(case, monkeypatch):
    args = corpus_args(case, case.dtypes[0])
    argnum = _first_float(args, case.static_argnums)
    if argnum < 0:
        pytest.skip("no float array argument to differentiate")
    try:
        func, leaves = _core(astjax.grad(total_of(case.fun), argnums=argnum), args,
                             case.static_argnums)
    except astjax.errors.AstjaxError as e:  # (not this backend's matter: test_grad's)
        pytest.skip(f"grad does not apply: {str(e).splitlines()[0]}")
    reusing, plain, _ = _run_both(func, leaves, monkeypatch)
    assert_trees_match(reusing, plain)


def test_a_chain_takes_two_fresh_arrays_and_reuses_them():
    def chain(x):
        y = jnp.tanh(x) * jnp.exp(-x * x) + 0.5 * jnp.sin(3.0 * x)
        return jnp.log1p(y * y) - jnp.sqrt(jnp.abs(x)) * 0.25

    x = np.linspace(-2, 2, 1 << 19, dtype=np.float32)  # (2 MB: large enough to release)
    func, _ = _core(chain, (x,))
    source, _ = printer.print_func(func, reuse_buffers=True)
    calls = [line.split("#")[0] for line in source.splitlines() if "lax." in line]
    fresh = [c for c in calls if "out=" not in c]
    assert len(calls) == 15 and len(fresh) == 2, source
    assert "out=x" not in source  # (the caller's array)
    got = numpy_backend.compile_func(func)(x.copy())
    np.testing.assert_allclose(got, chain(x), rtol=1e-6)


def test_no_reuse_of_arguments_views_other_dtypes_or_values_read_again():
    def f(x, k):
        a = x * 2.0            # fresh, but read by a transpose (a view may share it)
        b = a.T
        s = a + 1.0            # a's last read: still not taken
        c = jnp.exp(x)         # fresh and private, dead at its read by d
        d = c > 1.0            # bool: not c's dtype
        e = jnp.sin(x) + 1.0   # may take c's buffer, then its own
        g = e * 3.0
        h = (k * 2).astype(jnp.float32) + g  # k and its int product: never taken
        return b, s, d, h, x

    x = np.linspace(-1, 1, 1 << 18).reshape(512, 512)
    k = np.arange(1 << 18).reshape(512, 512)
    func, leaves = _core(f, (x, k))
    source, _ = printer.print_func(func, reuse_buffers=True)
    lines = {line.split(" = ")[0].strip(): line for line in source.splitlines() if " = " in line}
    assert "out=a" not in source and "out=k" not in source and "out=x" not in source
    assert "out=" not in lines["d"] and "out=" not in lines["mul"]
    assert "out=c" in lines["sin"] and "out=e" in lines["g"], source
    got = numpy_backend.compile_func(func)(*leaves)
    want = (x.T * 2.0, x * 2.0 + 1.0, np.exp(x) > 1.0,
            (k * 2).astype(np.float32) + (np.sin(x) + 1.0) * 3.0, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_a_loop_body_reuses_its_own_values_not_its_carry():
    def newton(a):
        def body(state):
            x, i = state
            return 0.5 * (x + a / x), i + 1
        x, _ = astjax.lax.while_loop(lambda s: s[1] < 8, body, (a + 1.0, 0))
        return x

    a = np.linspace(0.5, 50.0, 1 << 18)
    got = astjax.jit(astjax.vmap(newton), backend="numpy")(a)
    x = a + 1.0
    for _ in range(8):
        x = 0.5 * (x + a / x)
    np.testing.assert_allclose(got, x, rtol=1e-12)


def test_numpys_huge_page_hint_is_off_inside_the_numpy_tier_and_restored_after():
    import threading
    from astjax.backends.numpy import _MADVISE, small_pages
    if _MADVISE is None:
        pytest.skip("this NumPy has no huge page hint")

    def hint() -> bool:  # (NumPy's setter returns the setting it replaces)
        now = _MADVISE(True)
        _MADVISE(now)
        return now
    original = _MADVISE(True)
    try:
        entered, leave = threading.Barrier(2), threading.Event()
        seen = []

        def other():
            with small_pages():
                entered.wait()
                leave.wait(10)
            seen.append(hint())  # (the main thread's block is still open)
        thread = threading.Thread(target=other)
        thread.start()
        with small_pages():
            entered.wait()
            assert hint() is False
            leave.set()
            thread.join(10)
            assert seen == [False] and hint() is False
        assert hint() is True  # (the last block to end restores it)
        f = astjax.jit(lambda x: jnp.tanh(x) * 2.0, backend="auto")
        f(np.ones(1 << 18))
        assert hint() is True
    finally:
        _MADVISE(original)
