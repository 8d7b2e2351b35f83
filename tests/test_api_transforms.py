"""The rest of JAX's transformation API, against JAX 0.10.2 as the oracle: jacfwd/jacrev/
hessian over pytrees with tuple argnums and has_aux, linearize, linear_transpose, eval_shape,
make_jaxpr, custom_gradient, disable_jit, and the names JAX programs use that change nothing
in astjax (closure_convert, named_call, ensure_compile_time_eval, checkpoint policies)."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.tree_util import tree_leaves

jax = pytest.importorskip("jax")
jnp_ = jax.numpy


def f(x, y):
    return {"a": jnp.sin(x) * y[0], "b": (x ** 2).sum() * y}


def jf(x, y):
    return {"a": jnp_.sin(x) * y[0], "b": (x ** 2).sum() * y}


def g(p, z):
    return jnp.sum(p["w"] ** 2 * z) + jnp.prod(p["v"]) * z.sum(), p["w"].sum()


def jg(p, z):
    return jnp_.sum(p["w"] ** 2 * z) + jnp_.prod(p["v"]) * z.sum(), p["w"].sum()


def close(a, b, rtol=1e-6):
    la, lb = tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for u, v in zip(la, lb):
        assert np.shape(u) == np.shape(v)
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=rtol, atol=1e-6)


X, Y = np.array([0.3, 1.2, -0.5]), np.array([2.0, -1.0])
P, Z = {"w": np.array([1.0, 2.0, 3.0]), "v": np.array([0.5, 1.5])}, np.array([1.0, 0.5, 2.0])


@pytest.mark.parametrize("backend", ["numpy", "xla", "numba"])
@pytest.mark.parametrize("name", ["jacfwd", "jacrev", "jacobian"])
def test_jacobians_of_pytrees_with_tuple_argnums_and_aux(backend, name):
    ours, theirs = getattr(astjax, name), getattr(jax, name)
    close(astjax.jit(ours(f, argnums=(0, 1)), backend=backend)(X, Y),
          theirs(jf, argnums=(0, 1))(X, Y))
    close(astjax.jit(ours(f, argnums=1), backend=backend)(X, Y), theirs(jf, argnums=1)(X, Y))
    close(astjax.jit(ours(g, argnums=(0, 1), has_aux=True), backend=backend)(P, Z),
          theirs(jg, argnums=(0, 1), has_aux=True)(P, Z))


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_hessian_with_tuple_argnums_and_aux(backend):
    close(astjax.jit(astjax.hessian(lambda p, z: g(p, z)[0], argnums=(0, 1)),
                     backend=backend)(P, Z),
          jax.hessian(lambda p, z: jg(p, z)[0], argnums=(0, 1))(P, Z))
    close(astjax.jit(astjax.hessian(g, has_aux=True), backend=backend)(P, Z),
          jax.hessian(jg, has_aux=True)(P, Z))


def test_a_jacobian_matches_central_differences():
    def h(x):
        return jnp.stack([x[0] * x[1], jnp.exp(x[2]) - x[0]])
    x, eps = np.array([0.7, -1.3, 0.2]), 1e-6
    fd = np.stack([(np.asarray(h(x + eps * e)) - np.asarray(h(x - eps * e))) / (2 * eps)
                   for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(astjax.jacrev(h)(x), fd, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(astjax.jacfwd(h)(x), fd, rtol=1e-7, atol=1e-9)


def test_linearize_and_linear_transpose():
    x = np.array([0.5, 1.0, 2.0])
    value, f_jvp = astjax.linearize(lambda a: jnp.sin(a) * a, x)
    want_value, want_jvp = jax.linearize(lambda a: jnp_.sin(a) * a, x)
    np.testing.assert_allclose(value, want_value, rtol=1e-6)
    t = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(f_jvp(t), want_jvp(t), rtol=1e-6)
    transpose = astjax.linear_transpose(lambda a, b: 2.0 * a + b[:3] * 3.0, x,
                                        astjax.ShapeDtypeStruct((5,), np.float64))
    want = jax.linear_transpose(lambda a, b: 2.0 * a + b[:3] * 3.0, x, np.zeros(5))
    close(transpose(t), want(t))


def loopy(x, n):
    for _ in range(n):
        x = x * 2.0
    return x


def test_eval_shape_and_make_jaxpr():
    shapes = astjax.eval_shape(f, astjax.ShapeDtypeStruct((5,), np.float32),
                               astjax.ShapeDtypeStruct((2,), np.float32))
    want = jax.eval_shape(jf, jax.ShapeDtypeStruct((5,), np.float32),
                          jax.ShapeDtypeStruct((2,), np.float32))
    assert [(s.shape, s.dtype) for s in tree_leaves(shapes)] == \
        [(s.shape, s.dtype) for s in jax.tree_util.tree_leaves(want)]
    form = astjax.make_jaxpr(loopy, static_argnums=1)(X, 3)
    assert str(form).count("lax.mul(") == 3
    assert [a.shape for a in form.in_avals] == [(3,)] and len(form.eqns) == 3
    form, shape = astjax.make_jaxpr(f, return_shape=True)(X, Y)
    assert "lax.sin(" in str(form) and shape["a"].shape == (3,)


@astjax.custom_gradient
def clipped_sin(x):
    def vjp(g):
        return (jnp.clip(g * jnp.cos(x), -0.1, 0.1),)
    return jnp.sin(x), vjp


@jax.custom_gradient
def jax_clipped_sin(x):
    def vjp(g):
        return (jnp_.clip(g * jnp_.cos(x), -0.1, 0.1),)
    return jnp_.sin(x), vjp


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_custom_gradient(backend):
    x = np.array([0.5, 1.0, 2.0])
    got = astjax.jit(astjax.grad(lambda a: clipped_sin(a).sum() * 3.0), backend=backend)(x)
    np.testing.assert_allclose(got, jax.grad(lambda a: jax_clipped_sin(a).sum() * 3.0)(x))
    np.testing.assert_allclose(clipped_sin(x), np.sin(x))


def python_only(x):
    return float(np.sum(x)) + 1.0  # float() of an array cannot be compiled


def test_disable_jit_runs_python():
    jitted = astjax.jit(python_only)
    with astjax.disable_jit():
        assert jitted(np.ones(3)) == 4.0
    with pytest.raises(astjax.AstjaxError):
        jitted(np.ones(3))


def test_names_that_change_nothing():
    fun, consts = astjax.closure_convert(f, X, Y)
    close(fun(X, Y), jf(X, Y))
    assert consts == [] and astjax.named_call(f, name="g") is f
    with astjax.ensure_compile_time_eval():
        pass
    policy = astjax.checkpoint_policies.save_only_these_names("a")
    remat = astjax.checkpoint(lambda a: jnp.sin(a) ** 2, policy=policy)
    np.testing.assert_allclose(astjax.grad(lambda a: remat(a).sum())(X), np.sin(2 * X))


def test_eager_scan_hands_the_body_array_slices():
    from astjax import lax
    slices = []
    lax.scan(lambda c, x: (slices.append(x) or c, None), 0.0, np.arange(3.0))
    assert all(isinstance(x, np.ndarray) and x.shape == () for x in slices)
    total = lax.fori_loop(0, 3, lambda i, v: v + i, np.float32(0.5))
    assert total == 3.5 and np.asarray(total).dtype == np.float32  # the index stays weak


def _ones_sum(x, n):
    return jnp.sum(jnp.ones(n) * x ** 2)


def _power(x, n):
    if n == 0:
        return 1.0
    return x * _power(x, n - 1)


def test_int_arguments_keep_their_values_as_in_jax():
    """grad/vmap called from Python see a Python int argument's value, as JAX's do: it can
    fix a shape or end a recursion (JAX oracle: d/dx n x^2 = 2 n x, d/dx x^n = n x^(n-1))."""
    for n in (1, 3, 4):
        assert astjax.grad(_ones_sum)(2.0, n) == pytest.approx(4.0 * n)
        assert astjax.grad(_power)(2.0, n) == pytest.approx(n * 2.0 ** (n - 1))
    xs = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(astjax.vmap(_power, in_axes=(0, None))(xs, 3), xs ** 3)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(_ones_sum), in_axes=(0, None))(xs, 2),
                               4.0 * xs)
