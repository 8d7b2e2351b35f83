"""pure_callback, io_callback and debug.callback on every backend: values against NumPy, vmap's
calling conventions against JAX's, derivatives (none, unless custom_jvp gives one) against
central differences, and the user's mistakes as errors naming their line."""
import warnings

import numpy as np
import pytest
import scipy.special

import astjax
import callback_cases as cases
from astjax.errors import AstjaxError, TransformError

BACKENDS = ["numpy", "xla", "auto"]
X = np.linspace(0.1, 2.9, 7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pure_callback_computes_what_numpy_does(backend):
    got = astjax.jit(cases.bessel_sum, backend=backend)(X)
    np.testing.assert_allclose(got, np.sum(np.sin(scipy.special.j1(X)) * X), rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pytrees_and_keywords_reach_the_host_function(backend):
    a, b = np.array([3.0, 1.0, 2.0]), np.array([0.5, 2.0, 1.0])
    got = astjax.jit(cases.pytree_callback, backend=backend)(a, b)
    np.testing.assert_allclose(got, 2.0 * np.sum(a * b) + 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lambda_made_inside_the_function_runs_as_python(backend):
    got = astjax.jit(cases.through_lambda, backend=backend)(X, 2.0)
    np.testing.assert_allclose(got, np.cumsum(X * 2.0) + 3.0)


def test_outside_compilation_the_function_is_called():
    np.testing.assert_allclose(cases.bessel_sum(X), np.sum(np.sin(scipy.special.j1(X)) * X))


def _shapes_seen(J, method, compiled=lambda fun: fun):
    """What vmap of a pure_callback gives, and the shapes its function is called with, under
    J (jax, or astjax)."""
    seen = []

    def host(x, y):
        seen.append((np.shape(x), np.shape(y)))
        return np.asarray(x) + np.asarray(y)

    def f(x, y):
        shape = np.broadcast_shapes(x.shape, y.shape)
        return J.pure_callback(host, J.ShapeDtypeStruct(shape, x.dtype), x, y,
                               vmap_method=method)
    out = compiled(J.vmap(f, in_axes=(0, None)))(np.arange(4, dtype=np.float32),
                                                 np.float32(1.0))
    return np.asarray(out), seen


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all", "legacy_vectorized"])
@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_vmap_calls_the_function_as_jax_does(method, backend):
    want, want_seen = _shapes_seen(pytest.importorskip("jax"), method)
    got, got_seen = _shapes_seen(astjax, method, lambda fun: astjax.jit(fun, backend=backend))
    np.testing.assert_allclose(got, want)
    assert got_seen == want_seen


def test_vmap_of_a_row_callback_matches_a_python_loop():
    x = np.arange(12.0).reshape(3, 4)
    got = astjax.jit(cases.callback_under_vmap, static_argnums=1)(x, "sequential")
    np.testing.assert_allclose(got, np.stack([np.cumsum(row) for row in x]))


def test_vmap_without_a_vmap_method_is_an_error_naming_the_line():
    with pytest.raises(TransformError, match="needs a vmap_method") as info:
        astjax.jit(cases.callback_under_vmap, static_argnums=1)(np.ones((2, 3)), None)
    assert "callback_cases.py" in str(info.value)


def test_differentiating_through_a_callback_is_an_error_naming_the_line():
    with pytest.raises(TransformError, match="pure_callback has no derivative") as info:
        astjax.grad(cases.differentiated)(X)
    assert "callback_cases.py:39" in str(info.value)
    with pytest.raises(TransformError, match="no derivative"):
        astjax.jvp(cases.differentiated, (X,), (np.ones_like(X),))


def test_a_callback_of_values_not_differentiated_needs_no_derivative():
    w = np.linspace(-1.0, 1.0, 7)
    np.testing.assert_allclose(astjax.grad(cases.weighted)(w, X), np.exp(X))
    np.testing.assert_allclose(astjax.jit(astjax.grad(cases.weighted))(w, X), np.exp(X))


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_jvp_gives_a_callback_its_derivative(backend):
    got = astjax.jit(astjax.grad(cases.j0_loss), backend=backend)(X)
    np.testing.assert_allclose(got, -2.0 * scipy.special.j0(X) * scipy.special.j1(X),
                               rtol=1e-12)
    eps = 1e-6
    fd = [(cases.j0_loss(X + eps * e) - cases.j0_loss(X - eps * e)) / (2 * eps)
          for e in np.eye(X.size)]
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-9)
    per_example = astjax.jit(astjax.vmap(astjax.grad(cases.j0)), backend=backend)(X)
    np.testing.assert_allclose(per_example, -scipy.special.j1(X), rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_io_callback_runs_every_time_in_order(backend):
    cases.LOG.clear()
    f = astjax.jit(cases.logged_steps, backend=backend)
    out = f(np.ones(2))
    np.testing.assert_allclose(out, [27.0, 27.0])
    assert [v.tolist() for v in cases.LOG] == [[1.0, 1.0], [3.0, 3.0], [9.0, 9.0]]
    for _ in range(5):
        f(np.ones(2))
    assert len(cases.LOG) == 18
    cases.LOG.clear()
    astjax.jit(cases.unused_io, backend=backend)(np.ones(3))
    assert len(cases.LOG) == 1  # (an effect: kept though its result is not read)


def test_io_callback_under_vmap_runs_per_example_unless_ordered():
    cases.LOG.clear()
    f = astjax.vmap(cases.unused_io)
    np.testing.assert_allclose(f(np.ones((4, 2))), 2.0)
    assert [v.shape for v in cases.LOG] == [(2,)] * 4
    with pytest.raises(TransformError, match="ordered io_callback"):
        astjax.vmap(cases.logged_steps)(np.ones((2, 2)))
    with pytest.raises(TransformError, match="io_callback has no derivative"):
        astjax.grad(lambda x: cases.logged_steps(x)[0])(np.ones(2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_debug_callback_sees_the_values_and_derivatives_see_through_it(backend):
    cases.SEEN.clear()
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(astjax.jit(cases.watched, backend=backend)(x), np.tanh(x))
    assert cases.SEEN == [15.0]
    astjax.jit(astjax.vmap(cases.watched), backend=backend)(np.stack([x, 2 * x]))
    assert cases.SEEN == [15.0, 15.0, 30.0]
    g = astjax.jit(astjax.grad(lambda v: astjax.numpy.sum(cases.watched(v))),
                   backend=backend)(x)
    np.testing.assert_allclose(g, 1.0 - np.tanh(x) ** 2)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("case, message", [(cases.wrong_shape, "of shape \\(2,\\)"),
                                           (cases.wrong_dtype, "returned int32")])
def test_a_result_unlike_its_declaration_is_an_error_naming_the_line(backend, case, message):
    with pytest.raises(TransformError, match=message) as info:
        astjax.jit(case, backend=backend)(np.ones(3))
    assert "callback_cases.py" in str(info.value)


def test_the_host_functions_exception_is_raised_once_without_dropping_a_tier():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no tier is dropped for the user's own error)
        f = astjax.jit(cases.raising, backend="auto")
        for _ in range(2):
            with pytest.raises(ValueError, match="the host function failed"):
                f(np.ones(3))


@pytest.mark.parametrize("backend", ["xla", "auto"])
def test_a_host_functions_later_exception_is_its_own(backend):
    """Calls that succeeded before do not turn a later host error into XLA's (the repeat
    calls' short path is only for modules without host calls)."""
    f = astjax.jit(cases.raising_on_negatives, backend=backend)
    for _ in range(3):
        np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    with pytest.raises(ValueError, match="refused a negative"):
        f(-np.ones(3))


def test_numba_cannot_hold_a_host_function_and_auto_keeps_it_off():
    with pytest.raises(AstjaxError, match="cannot run in a Numba kernel"):
        astjax.jit(cases.bessel_sum, backend="numba")(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = astjax.jit(cases.bessel_sum, backend="auto")
        for _ in range(40):  # (hot: Numba would be tried, its failure a warning, an error here)
            out = f(X)
    np.testing.assert_allclose(out, np.sum(np.sin(scipy.special.j1(X)) * X))


def test_jax_experimental_is_astjax_experimental():
    import astjax.experimental
    assert astjax.experimental.io_callback is cases.io_callback


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_effects_literal_operand_reaches_it(backend, capsys):
    out = astjax.jit(cases.prints_a_literal, backend=backend)(np.ones(2))
    np.testing.assert_allclose(out, 2.0)
    assert capsys.readouterr().out == "x=[1. 1.] k=1.5\n"
