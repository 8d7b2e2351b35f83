"""Matrix products a scan does per step without needing its carry run once over every step,
outside the loop (rewriters/loops.py). Oracles: explicit NumPy loops, and the generated
source for the structure."""
import numpy as np
import pytest

import astjax
import scan_product_cases as cases
from astjax.rewriters import loops

RNG = np.random.default_rng(7)
BACKENDS = ["numpy", "xla"]


def body_of(text: str, name: str) -> str:
    """The lines of the nested `def name...` in generated source."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(f"def {name}"))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line.split("  #")[0])
    return "\n".join(body)


def products(text: str) -> int:
    return text.count("lax.dot_general(") + text.count("lax.einsum(")


def source(f, *args) -> str:
    return astjax.make_source(astjax.jit(f), *args)


# ---------------------------------------------------------------- oracles (NumPy loops)
def projected_loop(w, xs):
    h, ys = np.zeros((xs.shape[1], w.shape[1])), []
    for x in xs:
        h = np.tanh(0.5 * h + x @ w)
        ys.append(h[0])
    return h, np.stack(ys)


def batched_projection_loop(w, xs):
    h = np.zeros((xs.shape[1], w.shape[2], xs.shape[2]))
    for x in xs:
        h = np.sin(h + np.einsum("bkn,bnm->bkm", x, w).transpose((0, 2, 1)))
    return h


def accumulated_loop(a, xs):
    h, c, ys = np.zeros((xs.shape[1], a.shape[0])), np.ones((xs.shape[2], a.shape[0])), []
    for x in xs:
        h = np.tanh(h @ a + x[:, :1])
        c = c + x.T @ h
        ys.append(h.sum())
    return h, c, np.array(ys)


def accumulated_einsums_loop(a, v, xs):
    b, n = xs.shape[1], xs.shape[2]
    h, c, d = np.zeros((b, n)), np.zeros((n, n)), np.full((b, n), 2.0)
    for x in xs[::-1]:
        h = np.cos(h @ a) + x
        c = c + np.einsum("bn,bm,m->nm", x, h, v)
        d = d + h @ a
    return h, c, d


def accumulator_read_loop(a, xs):
    h, c = np.zeros((xs.shape[1], a.shape[0])), np.zeros((xs.shape[2], a.shape[0]))
    for x in xs:
        h = np.tanh(h @ a + x[:, :1] + c.sum())
        c = c + x.T @ h
    return h, c


def nested_loop(w, xss):
    g = np.zeros((xss.shape[2], w.shape[1]))
    for xs in xss:
        h = g
        for x in xs:
            h = np.tanh(h + x @ w)
        g = g + h
    return g


def assert_all_close(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- products over xs alone
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_projection_of_xs_is_one_product_before_the_loop(backend):
    w, xs = RNG.standard_normal((3, 5)), RNG.standard_normal((7, 4, 3))
    text = source(cases.projected, w, xs)
    assert products(body_of(text, "step")) == 0
    assert "lax.dot_general(xs, w" in text  # every step's x @ w at once
    assert_all_close(astjax.jit(cases.projected, backend=backend)(w, xs), projected_loop(w, xs))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_batched_projection_moves_out_with_its_batch_axis(backend):
    w, xs = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 2, 6, 3))
    assert products(body_of(source(cases.batched_projection, w, xs), "step")) == 0
    assert_all_close(astjax.jit(cases.batched_projection, backend=backend)(w, xs),
                     batched_projection_loop(w, xs))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inner_scans_projection_leaves_the_inner_loop(backend):
    w, xss = RNG.standard_normal((3, 2)) * 0.5, RNG.standard_normal((3, 4, 5, 3))
    text = source(cases.nested, w, xss)
    assert products(text) == 1  # every inner step's x @ w, before the outer loop
    assert text.index("lax.dot_general(xss, w") < text.index("def step")
    assert_all_close(astjax.jit(cases.nested, backend=backend)(w, xss), nested_loop(w, xss))


# ---------------------------------------------------------------- accumulated products
@pytest.mark.parametrize("backend", BACKENDS + ["numba"])
def test_an_accumulated_product_is_one_product_after_the_loop(backend):
    a, xs = RNG.standard_normal((3, 3)) * 0.5, RNG.standard_normal((6, 4, 2))
    text = source(cases.accumulated, a, xs)
    assert "num_carry=1" in text  # c is no longer carried; h is
    assert products(body_of(text, "step")) == 1  # h @ a, which needs the carry
    assert "dimension_numbers=(((0, 2), (0, 1))" in text  # steps and rows contracted at once
    assert_all_close(astjax.jit(cases.accumulated, backend=backend)(a, xs),
                     accumulated_loop(a, xs))


@pytest.mark.parametrize("backend", BACKENDS + ["numba"])
def test_accumulated_einsums_and_constant_operands_in_a_reverse_scan(backend):
    a, v = RNG.standard_normal((2, 2)) * 0.5, RNG.standard_normal(2)
    xs = RNG.standard_normal((5, 4, 2))
    text = source(cases.accumulated_einsums, a, v, xs)
    assert "num_carry=1" in text
    assert "subscripts='tbn,tbm,m->nm'" in text  # v is not stacked: the same every step
    assert "lax.reduce_sum(h_1, axes=(0,))" in text  # sum of h then one h @ a
    assert_all_close(astjax.jit(cases.accumulated_einsums, backend=backend)(a, v, xs),
                     accumulated_einsums_loop(a, v, xs))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_accumulator_the_step_reads_stays_a_carry(backend):
    a, xs = RNG.standard_normal((3, 3)) * 0.3, RNG.standard_normal((6, 4, 2)) * 0.3
    text = source(cases.accumulator_read_in_the_body, a, xs)
    assert "num_carry=2" in text
    assert_all_close(astjax.jit(cases.accumulator_read_in_the_body, backend=backend)(a, xs),
                     accumulator_read_loop(a, xs))


def test_stacks_past_the_memory_bound_keep_the_products_in_the_loop(monkeypatch):
    monkeypatch.setattr(loops, "HOIST_BYTES", 0)
    monkeypatch.setenv("ASTJAX_FRONTEND_CACHE", "0")  # (an entry on disk has them moved)
    astjax.clear_caches()
    a, xs = RNG.standard_normal((3, 3)) * 0.5, RNG.standard_normal((6, 4, 2))
    text = source(cases.accumulated, a, xs)
    assert "num_carry=2" in text and products(body_of(text, "step")) == 2
    w = RNG.standard_normal((2, 5))
    assert products(body_of(source(cases.projected, w, xs), "step")) == 1
    assert_all_close(astjax.jit(cases.accumulated)(a, xs), accumulated_loop(a, xs))


def test_the_gradient_of_an_rnn_has_one_product_per_step_each_way():
    """The shared bench's RNN: the input projection before the forward loop, the weight
    gradients after the sweep; the gradient as finite differences give it."""
    import loop_residual_cases
    wh, wx = RNG.standard_normal((8, 8)) * 0.3, RNG.standard_normal((3, 8)) * 0.3
    xs = RNG.standard_normal((6, 4, 3))
    grad = astjax.grad(loop_residual_cases.rnn_loss, argnums=(0, 1))
    text = astjax.make_source(grad, wh, wx, xs)
    steps = [name for name in ("step", "step_") if f"def {name}" in text]
    assert steps and all(products(body_of(text, name)) == 1 for name in steps)
    assert text.count("subscripts='t") == 2  # wh's and wx's gradient, over every step
    gh, gx = grad(wh, wx, xs)
    eps = 1e-6
    for got, arg in ((gh, 0), (gx, 1)):
        args = [wh, wx, xs]
        want = np.zeros_like(args[arg])
        for i in range(want.size):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[arg].flat[i] += eps
            down[arg].flat[i] -= eps
            want.flat[i] = (loop_residual_cases.rnn_loss(*up)
                            - loop_residual_cases.rnn_loss(*down)) / (2 * eps)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-8)
