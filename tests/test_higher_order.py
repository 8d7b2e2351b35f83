"""Higher-order derivatives and the identities between the modes, against finite differences
(central, float64), plus custom_jvp / custom_vjp through the public API."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import astjax
import higher_order_cases as cases

EPS = 1e-5
vectors = arrays(np.float64, st.integers(2, 5), elements=st.floats(-1.5, 1.5))


def fd_grad(f, x, eps=EPS):
    """Central differences of a scalar function (or of each entry of a vector function)."""
    rows = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        rows.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    return np.moveaxis(np.array(rows), 0, -1).reshape(np.shape(f(x)) + x.shape)


@settings(max_examples=8, deadline=None)
@given(x=vectors)
def test_grad_of_grad_matches_finite_differences_of_grad(x):
    g = astjax.grad(cases.scalar_fn)
    gg = astjax.grad(g)
    for value in x[:3]:
        value = np.float64(value)
        want = (g(value + EPS) - g(value - EPS)) / (2 * EPS)
        np.testing.assert_allclose(gg(value), want, rtol=1e-5, atol=1e-6)


def test_third_order_derivative():
    x = np.float64(0.7)
    ggg = astjax.grad(astjax.grad(astjax.grad(cases.scalar_fn)))
    gg = astjax.grad(astjax.grad(cases.scalar_fn))
    np.testing.assert_allclose(ggg(x), (gg(x + EPS) - gg(x - EPS)) / (2 * EPS), rtol=1e-5)


@settings(max_examples=8, deadline=None)
@given(x=vectors)
def test_jacfwd_equals_jacrev_and_finite_differences(x):
    x = np.concatenate([x, x[:1]])[:max(2, x.size)]
    fwd = astjax.jacfwd(cases.vector_valued)(x)
    rev = astjax.jacrev(cases.vector_valued)(x)
    np.testing.assert_allclose(fwd, rev, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fwd, fd_grad(cases.vector_valued, x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [cases.smooth, cases.with_branch])
@settings(max_examples=6, deadline=None)
@given(x=vectors)
def test_hessian_is_symmetric_and_matches_finite_differences_of_grad(fn, x):
    h = astjax.hessian(fn)(x)
    np.testing.assert_allclose(h, h.T, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(h, fd_grad(astjax.grad(fn), x), rtol=1e-4, atol=1e-5)


@settings(max_examples=8, deadline=None)
@given(x=vectors, seed=st.integers(0, 1000))
def test_dual_identity_between_vjp_and_jvp(x, seed):
    """<u, J v> == <J^T u, v> for random u, v: forward and reverse mode agree."""
    x = np.concatenate([x, x[:1]])[:max(2, x.size)]
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(x.shape)
    out, jv = astjax.jvp(cases.vector_valued, (x,), (v,))
    u = rng.standard_normal(np.shape(out))
    _, vjp_fn = astjax.vjp(cases.vector_valued, x)
    ju, = vjp_fn(u)
    np.testing.assert_allclose(np.dot(u, jv), np.dot(ju, v), rtol=1e-10, atol=1e-12)


def test_grad_of_scan_matches_finite_differences():
    x = np.array([0.3, -0.2, 0.5, 0.1])
    np.testing.assert_allclose(astjax.grad(cases.loop_then_scan)(x),
                               fd_grad(cases.loop_then_scan, x), rtol=1e-5, atol=1e-7)


def test_custom_jvp_rule_is_used_in_both_modes():
    x = np.array([0.5, -1.0, 2.0])
    expected = 1 / (1 + np.exp(-x)) * x + np.log1p(np.exp(x))  # d/dx softplus(x) * x
    np.testing.assert_allclose(astjax.grad(cases.softplus_loss)(x), expected, rtol=1e-12)
    _, tangent = astjax.jvp(cases.softplus_loss, (x,), (np.ones(3),))
    np.testing.assert_allclose(tangent, expected.sum(), rtol=1e-12)
    # a deliberately wrong rule shows that the rule, not the function, is differentiated
    np.testing.assert_allclose(astjax.grad(cases.uses_wrong_derivative)(x), [10.0] * 3)


def test_custom_vjp_rule_is_used():
    x = np.array([0.1, 0.2])
    # d/dx sum(clip_gradient(3x) * 5) would be 15; the rule clips the cotangent 5 to 1, times 3
    np.testing.assert_allclose(astjax.grad(cases.clipped_loss)(x), [3.0, 3.0])
    np.testing.assert_allclose(astjax.jit(cases.clipped_loss)(x), 5.0 * 3.0 * x.sum())


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_nondiff_argnums_are_fixed_in_the_rules(backend):
    """JAX's nondiff_argnums: the rules get the fixed arguments first (each rule here gives a
    wrong derivative on purpose, so the rule is what is differentiated)."""
    x = np.array([0.1, 0.7, -0.4])
    grad = astjax.jit(astjax.grad(cases.scaled_sine_loss), backend=backend)
    np.testing.assert_allclose(grad(x), 3.0 * np.cos(2 * x) * 2.0 * 0.5, rtol=1e-12)
    np.testing.assert_allclose(astjax.jit(cases.scaled_sine_loss, backend=backend)(x),
                               np.sum(3.0 * np.sin(2 * x)), rtol=1e-12)
    grad = astjax.jit(astjax.grad(cases.powered_loss), backend=backend)
    np.testing.assert_allclose(grad(x), 2.0 * 3 * x ** 2, rtol=1e-12)
    _, tangent = astjax.jvp(cases.powered_loss, (x,), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.sum(2.0 * 3 * x ** 2), rtol=1e-12)


def test_defjvps_adds_one_rule_per_argument():
    x = np.array([0.5, -1.5])
    # d/dx x * (x + 1) by the rules: 10 * (x + 1) (the first, scaled) + x (the second)
    np.testing.assert_allclose(astjax.grad(cases.product_loss)(x), 10.0 * (x + 1.0) + x,
                               rtol=1e-12)


def test_forward_mode_of_custom_vjp_is_a_clear_error():
    with pytest.raises(astjax.AstjaxError, match="custom_vjp"):
        astjax.jvp(cases.clipped_loss, (np.ones(2),), (np.ones(2),))


def test_grad_composes_with_jit_and_vmap():
    xs = np.linspace(-1, 1, 6).reshape(3, 2)
    per_example = astjax.jit(astjax.vmap(astjax.grad(cases.smooth)))(xs)
    loop = np.stack([astjax.grad(cases.smooth)(x) for x in xs])
    np.testing.assert_allclose(per_example, loop, rtol=1e-12)


@pytest.mark.parametrize("start", [0.5, 3.0, 7.0, 12.0])  # several trip counts, and none
def test_second_derivative_through_a_data_dependent_while_loop(start):
    """Reverse over reverse through the loop's tape (JAX cannot take even the first)."""
    g = astjax.grad(cases.data_dependent_loop)
    x = np.float64(start)
    want = (g(x + EPS) - g(x - EPS)) / (2 * EPS)
    np.testing.assert_allclose(astjax.grad(g)(x), want, rtol=1e-5, atol=1e-7)


def test_cumprod_and_prod_hessians_at_zeros_match_jax():
    """Second derivatives of running and whole products where factors are exactly zero
    (the rules are products and sums only, so every order is exact, as JAX's)."""
    jax = pytest.importorskip("jax")
    import astjax.numpy as jnp
    w = np.array([[1.0, -2.0, 0.5, 3.0, 1.5], [0.3, 0.7, -1.1, 2.0, 0.9]])

    def f(x, np_):
        return np_.sum(np_.cumprod(x, axis=1) * w) + np_.sum(np_.prod(x, axis=1) ** 2)

    x = np.array([[2.0, 0.0, 3.0, 0.0, 1.5], [1.0, 2.0, 0.0, 4.0, 0.5]])
    with jax.enable_x64(True):
        want_grad = jax.grad(lambda v: f(v, jax.numpy))(x)
        want_hess = jax.hessian(lambda v: f(v, jax.numpy))(x)
    np.testing.assert_allclose(astjax.grad(lambda v: f(v, jnp))(x), want_grad, atol=1e-12)
    np.testing.assert_allclose(astjax.hessian(lambda v: f(v, jnp))(x), want_hess, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
def test_hessian_through_a_data_dependent_while_loop(backend):
    """Forward over reverse (the taped loop's JVP) against reverse over reverse and against
    central differences of the gradient."""
    f = cases.loop_until_large
    x = np.array([1.3, 0.7])
    hess = astjax.jit(astjax.hessian(f), backend=backend)(x)
    np.testing.assert_allclose(hess, astjax.jacrev(astjax.grad(f))(x), rtol=1e-12, atol=1e-12)
    eps = 1e-6
    grad = astjax.grad(f)
    fd = np.stack([(grad(x + eps * e) - grad(x - eps * e)) / (2 * eps) for e in np.eye(2)], 1)
    np.testing.assert_allclose(hess, fd, rtol=1e-5)
    np.testing.assert_allclose(astjax.jit(astjax.jacfwd(grad), backend=backend)(x), hess,
                               rtol=1e-12)


def _fd(f, x, eps=1e-4):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("x", [0.7, 1.3])
def test_reverse_over_reverse_through_a_fixed_loop_started_from_the_argument(x):
    """Every derivative of the gradient flows through the loop's tape (the tape's cotangents
    join the carry's in the sweep), also when a carry starts as a literal."""
    x = np.float64(x)
    for f in (cases.fori_from_argument, lambda v: cases.scan_from_literal(v * np.ones(3))):
        g = astjax.grad(f)
        gg = astjax.grad(g)
        np.testing.assert_allclose(gg(x), _fd(g, x), rtol=1e-6)
        np.testing.assert_allclose(astjax.jacfwd(g)(x), gg(x), rtol=1e-12)
        np.testing.assert_allclose(astjax.grad(gg)(x), _fd(gg, x), rtol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("x", [0.7, 1.3, 12.0])  # several trip counts, and none
def test_third_and_fourth_derivatives_through_a_data_dependent_while_loop(backend, x):
    """grad of grad of grad (and once more) through the loop's tape, when the loop's
    condition reads the differentiated carry and when it does not."""
    x = np.float64(x)
    for f in (cases.data_dependent_loop, lambda v: cases.counted_loop(v, 3.5)):
        g2 = astjax.grad(astjax.grad(f))
        g3 = astjax.jit(astjax.grad(g2), backend=backend)
        g4 = astjax.jit(astjax.grad(astjax.grad(g2)), backend=backend)
        np.testing.assert_allclose(g3(x), _fd(g2, x), rtol=1e-5, atol=1e-9)
        np.testing.assert_allclose(g4(x), _fd(astjax.grad(g2), x), rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_third_derivatives_through_a_while_loop_batched_and_as_jacobians(backend):
    """jacrev of hessian through a vector while loop (against differences of the hessian),
    and vmap of a third derivative with a different trip count per lane (against a Python
    loop of per-example derivatives)."""
    f = cases.loop_until_large
    x = np.array([1.3, 0.7])
    hess = astjax.hessian(f)
    third = astjax.jit(astjax.jacrev(astjax.hessian(f)), backend=backend)(x)
    eps = 1e-5
    fd = np.stack([(hess(x + eps * e) - hess(x - eps * e)) / (2 * eps) for e in np.eye(2)], -1)
    np.testing.assert_allclose(third, fd, rtol=1e-5, atol=1e-6)
    g3 = astjax.grad(astjax.grad(astjax.grad(cases.data_dependent_loop)))
    xs = np.array([0.7, 1.3, 4.0, 11.0])  # 5, 4, 2 and 0 trips
    batched = astjax.jit(astjax.vmap(g3), backend=backend)(xs)
    np.testing.assert_allclose(batched, [g3(v) for v in xs], rtol=1e-12)


def test_third_derivative_through_a_while_loop_on_numba():
    g3 = astjax.grad(astjax.grad(astjax.grad(cases.data_dependent_loop)))
    for x in (0.7, 11.0):
        np.testing.assert_allclose(astjax.jit(g3, backend="numba")(np.float64(x)),
                                   g3(np.float64(x)), rtol=1e-12)
