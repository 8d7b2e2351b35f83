"""A scan's reverse sweep reads residuals its forward pass saved instead of running the body
again; loops compute no result nobody reads; two derivative rules stay in the operands' dtype
and off values that cannot change the result. Oracles: JAX where installed, central finite
differences in float64, NumPy loops."""
import numpy as np
import pytest

import astjax
import loop_residual_cases as cases

RNG = np.random.default_rng(0)


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def code(text: str) -> str:
    """Generated source without its comments (they quote the user's lines)."""
    return "\n".join(line.split("  #")[0] for line in text.splitlines()
                     if not line.lstrip().startswith("#"))


def rnn_args(dtype=np.float32):
    return ((RNG.standard_normal((8, 8)) * 0.3).astype(dtype),
            (RNG.standard_normal((3, 8)) * 0.3).astype(dtype),
            RNG.standard_normal((6, 4, 3)).astype(dtype))


def test_scan_gradient_does_not_run_the_body_again():
    text = astjax.make_source(astjax.grad(cases.rnn_loss, argnums=(0, 1)), *rnn_args(),
                              backend="xla")
    # one product per step each way (h @ wh, z_bar @ wh.T); x @ wx for every step before the
    # loop, the two weight gradients over every step after it (see rewriters/loops.py)
    assert text.count("stablehlo.dot_general") == 5


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_scan_gradient_matches_finite_differences(backend):
    wh, wx, xs = rnn_args(np.float64)
    gh, gx = astjax.jit(astjax.grad(cases.rnn_loss, argnums=(0, 1)), backend=backend)(wh, wx, xs)
    np.testing.assert_allclose(gh, fd_grad(lambda w: cases.rnn_loss(w, wx, xs), wh), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(gx, fd_grad(lambda w: cases.rnn_loss(wh, w, xs), wx), rtol=1e-6,
                               atol=1e-8)


def test_an_effect_in_a_scan_body_runs_once_per_step_under_grad(capsys):
    x = np.array([0.1, 0.2, 0.3])
    g = astjax.grad(cases.printing_scan)(x)
    assert capsys.readouterr().out.splitlines() == ["step 0.1", "step 0.2", "step 0.3"]
    np.testing.assert_allclose(g, fd_grad(cases.printing_scan, x), rtol=1e-6)


@pytest.mark.parametrize("f", [cases.nested_scans, cases.rnn_loss], ids=["nested", "rnn"])
def test_second_derivatives_through_scans(f):
    """Reverse over reverse and forward over reverse: the saved residuals are differentiated
    again (they are ordinary outputs of the forward scan to the outer derivative)."""
    if f is cases.rnn_loss:
        wh, wx, xs = rnn_args(np.float64)
        x, call = wx, (lambda w: f(wh, w, xs))
    else:
        x, call = np.array([0.3, -0.2, 0.5]), f
    g = astjax.grad(call)
    want = np.stack([fd_grad(lambda v: np.asarray(g(v)).flat[i], x, 1e-5)
                     for i in range(x.size)]).reshape(x.shape + x.shape)
    for hessian in (astjax.jacrev(astjax.grad(call)), astjax.jacfwd(astjax.grad(call))):
        h = np.asarray(hessian(x)).reshape(x.size, x.size)
        np.testing.assert_allclose(h, want.reshape(x.size, x.size), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)


def test_an_unread_stacked_output_and_carry_are_not_computed():
    x = np.array([0.5, -1.0, 2.0])
    text = code(astjax.make_source(astjax.jit(cases.unused_scan_outputs), x))
    assert "sin" not in text and "add(count" not in text
    assert astjax.jit(cases.unused_scan_outputs)(x) == pytest.approx(np.sum(x * x))


def test_a_carry_read_by_a_kept_carry_is_kept():
    x = np.array([0.5, -1.0])
    text = code(astjax.make_source(astjax.jit(cases.carry_read_by_a_kept_carry), x))
    assert "cos" not in text
    a, b = x.copy(), x.copy()
    for _ in range(5):
        a, b = a + b, b * 2.0
    np.testing.assert_allclose(astjax.jit(cases.carry_read_by_a_kept_carry)(x), a)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_a_while_loop_drops_a_carry_nobody_reads(backend):
    x = np.array([0.5, -1.0])
    f = astjax.jit(cases.while_with_a_dead_carry, backend=backend)
    assert "cos" not in code(astjax.make_source(f, x))
    np.testing.assert_allclose(f(x), 10 * x)


def test_relu_derivative_stays_in_float32():
    x = RNG.standard_normal(16).astype(np.float32)
    grad = astjax.grad(cases.relu_sum)
    assert "f64" not in astjax.make_source(grad, x, backend="xla")
    g = grad(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.where(x > 0, 2 * x, 0.0), rtol=1e-6)


def test_logsumexp_gradient_is_softmax_without_differentiating_the_max():
    x = np.array([[1.0, 3.0, 3.0], [-np.inf, 0.0, 2.0], [5.0, 5.0, 5.0]])
    grad = astjax.grad(cases.logsumexp_rows)
    text = code(astjax.make_source(grad, x))
    assert "reduce_max_bar" not in text and "lax.eq(" not in text
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(grad(x), e / e.sum(axis=1, keepdims=True), rtol=1e-12)


def test_residuals_past_the_memory_limit_give_way_to_recomputing(monkeypatch):
    """Where saved residuals would be too large, the sweep runs each step's body again from
    a tape of the carries: one more dot_general (h @ wh again; x @ wx for every step is
    shared with the forward pass), the same gradient."""
    from astjax.rewriters.ad import residuals
    monkeypatch.setattr(residuals, "RECOMPUTE_BYTES", 0)
    monkeypatch.setattr(residuals, "RECOMPUTE_RATIO", 1)
    monkeypatch.setenv("ASTJAX_FRONTEND_CACHE", "0")  # (an entry on disk has residuals)
    astjax.clear_caches()
    wh, wx, xs = rnn_args(np.float64)
    grad = astjax.grad(cases.rnn_loss, argnums=(0, 1))
    text = astjax.make_source(grad, wh, wx, xs, backend="xla")
    assert text.count("stablehlo.dot_general") == 6
    gh, gx = astjax.jit(grad, backend="numpy")(wh, wx, xs)
    np.testing.assert_allclose(gh, fd_grad(lambda w: cases.rnn_loss(w, wx, xs), wh), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(gx, fd_grad(lambda w: cases.rnn_loss(wh, w, xs), wx), rtol=1e-6,
                               atol=1e-8)


def test_a_scan_whose_length_is_its_xs_keeps_one_unread_xs():
    """A scan of length -1 (the reverse of a while loop: as long as its tape) keeps an xs
    even when its body reads none, or it would not know how many steps to run."""
    from astjax.backends import numpy as numpy_backend
    from astjax.core.avals import AVal
    from astjax.core.ir import Eqn, Func, Lit, Var
    from astjax.core.simplify import eliminate_dead_code
    f64 = np.dtype("float64")
    c, x = Var(AVal((), f64), "c"), Var(AVal((), f64), "x")
    c_next = Var(AVal((), f64), "c_next")
    body = Func("step", [c, x], [Eqn([c_next], "add", [c, Lit(1.0)], {})], [c_next])
    init, tape = Var(AVal((), f64), "init"), Var(AVal((-1,), f64), "tape")
    final = Var(AVal((), f64), "final")
    scan = Eqn([final], "scan", [init, tape], dict(body=body, num_consts=0, num_carry=1,
                                                   length=-1, reverse=True))
    pruned = eliminate_dead_code(Func("f", [init, tape], [scan], [final]))
    assert len(pruned.eqns[0].ins) == 2
    run = numpy_backend.compile_func(pruned, "test")
    assert float(run(2.0, np.zeros(5))) == 7.0
