"""Linear algebra (Cholesky, LU, QR, eigh, SVD, triangular solves and what jnp.linalg and
jax.scipy.linalg build on them): values against JAX (the oracle, float64) on every backend,
gradients against JAX's and against central differences of astjax's own values, batching
against a Python loop."""
import numpy as np
import pytest

import astjax
import linalg_cases as cases
from astjax.errors import AstjaxError

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 4))
TALL = RNG.normal(size=(5, 3))
WIDE = RNG.normal(size=(3, 5))
B = RNG.normal(size=(4, 2))
SPD = A @ A.T + 4 * np.eye(4)
STACK = RNG.normal(size=(3, 4, 4))
BACKENDS = ["numpy", "numba", "xla"]

VALUES = [(cases.det, (A,)), (cases.slogdet, (A,)), (cases.inv, (A,)),
          (cases.solve_matrix, (A, B)), (cases.solve_vector, (A, B)), (cases.cholesky, (SPD,)),
          (cases.cho_solve, (SPD, B)), (cases.lu_parts, (A,)), (cases.lu_parts, (TALL,)),
          (cases.lu_parts, (WIDE,)), (cases.lu_solve, (A, B)), (cases.triangular, (A, B)),
          (cases.qr_reduced, (TALL,)), (cases.qr_reduced, (WIDE,)), (cases.qr_complete, (TALL,)),
          (cases.eigh, (SPD,)), (cases.svd, (TALL,)), (cases.svd, (WIDE,)),
          (cases.svd_full, (TALL,)), (cases.derived, (TALL, SPD)),
          (cases.least_squares, (TALL, TALL[:, :2] + 1.0)), (cases.batched, (STACK,))]
IDS = [f"{f.__name__}-{'x'.join(map(str, args[0].shape))}" for f, args in VALUES]


def jax_run(fun, args, transform=None):
    import jax.numpy as jjnp
    with jax.enable_x64(True):
        f = transform(fun) if transform else fun
        out = jax.jit(f)(*[jjnp.asarray(a) for a in args])
        return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


def as_list(out):
    return [np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun, args", VALUES, ids=IDS)
def test_values_as_jax(fun, args, backend):
    got = as_list(astjax.jit(fun, backend=backend)(*args))
    want = jax_run(fun, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-9)


LOSSES = [(cases.loss_det, (A,)), (cases.loss_solve, (A, B)), (cases.loss_cholesky, (SPD, B)),
          (cases.loss_triangular, (A + 3 * np.eye(4), B)), (cases.loss_qr, (TALL,)),
          (cases.loss_eigh, (SPD,)), (cases.loss_svd, (TALL,)), (cases.loss_svd, (WIDE,)),
          (cases.loss_norms, (TALL,))]
LOSS_IDS = [f"{f.__name__}-{'x'.join(map(str, args[0].shape))}" for f, args in LOSSES]


def central_differences(f, args, argnum, eps=1e-6):
    x = args[argnum]
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        up = list(args)
        down = list(args)
        up[argnum], down[argnum] = x + step, x - step
        out[i] = (float(f(*up)) - float(f(*down))) / (2 * eps)
    return out


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("fun, args", LOSSES, ids=LOSS_IDS)
def test_gradients_as_jax_and_differences(fun, args, backend):
    argnums = tuple(range(len(args)))
    got = astjax.jit(astjax.grad(fun, argnums=argnums), backend=backend)(*args)
    want = jax_run(fun, args, lambda f: jax.grad(f, argnums=argnums))
    forward = astjax.jit(fun, backend="numpy")
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(g, central_differences(forward, args, k), rtol=1e-5,
                                   atol=1e-6)


# (det's gradient, through LU, compiles for a minute on Numba: LU runs there in lu_solve)
@pytest.mark.parametrize("fun, args", [LOSSES[2], LOSSES[5], LOSSES[6]],
                         ids=[LOSS_IDS[i] for i in (2, 5, 6)])
def test_gradients_on_numba(fun, args):
    got = astjax.jit(astjax.grad(fun), backend="numba")(*args)
    np.testing.assert_allclose(got, jax_run(fun, args, jax.grad)[0], rtol=1e-7, atol=1e-8)


def test_forward_mode_matches_reverse():
    jac_fwd = astjax.jacfwd(cases.loss_svd)(TALL)
    np.testing.assert_allclose(jac_fwd, astjax.grad(cases.loss_svd)(TALL), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_vmap_matches_a_loop(backend):
    import astjax.numpy as jnp

    def per_matrix(a, b):
        w = jnp.linalg.eigvalsh(a @ a.T + 4.0 * jnp.eye(4))
        return jnp.linalg.det(a), jnp.linalg.solve(a, b), jnp.linalg.svd(a, compute_uv=False), w

    got = astjax.jit(astjax.vmap(per_matrix, in_axes=(0, None)), backend=backend)(STACK, B)
    for k in range(len(STACK)):
        for g, w in zip(got, per_matrix(STACK[k], B)):
            np.testing.assert_allclose(g[k], w, rtol=1e-10, atol=1e-12)
    grads = astjax.vmap(astjax.grad(cases.loss_det))(STACK)
    for k in range(len(STACK)):
        np.testing.assert_allclose(grads[k], astjax.grad(cases.loss_det)(STACK[k]), rtol=1e-10)


def test_failures_are_values_as_in_jax():
    import astjax.numpy as jnp
    not_positive = -np.eye(3)
    for backend in BACKENDS:
        assert np.isnan(astjax.jit(lambda m: jnp.linalg.cholesky(m),
                                   backend=backend)(not_positive)).all()
    singular = np.ones((3, 3))
    assert astjax.jit(lambda m: jnp.linalg.det(m))(singular) == 0.0
    sign, logdet = jnp.linalg.slogdet(singular)
    assert sign == 0.0 and logdet == -np.inf


def test_float32_stays_float32():
    import astjax.numpy as jnp
    a = A.astype(np.float32)
    for backend in BACKENDS:
        out = astjax.jit(lambda x: (jnp.linalg.inv(x), jnp.linalg.svd(x)[1]), backend=backend)(a)
        assert all(o.dtype == np.float32 for o in out)
        np.testing.assert_allclose(out[0], np.linalg.inv(A), rtol=1e-3, atol=1e-4)


def test_undefined_derivatives_are_refused_as_in_jax():
    import astjax.numpy as jnp
    with pytest.raises(AstjaxError, match="full_matrices"):
        astjax.grad(lambda a: jnp.sum(jnp.linalg.svd(a)[0]))(A)
    with pytest.raises(AstjaxError, match="m >= n"):
        astjax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[1]))(WIDE)
    with pytest.raises(AstjaxError, match="eigenvectors"):
        astjax.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eig(a)[1])))(A)


def numpy_det(x):
    import numpy
    return numpy.linalg.det(x)


def test_plain_numpy_det_differentiates():
    """Tangent's `det` test function: np.linalg.det stands for jnp.linalg.det; d det / dx is
    det(x) inv(x)^T (Jacobi's formula)."""
    x = RNG.normal(size=(3, 3))
    np.testing.assert_allclose(astjax.grad(numpy_det)(x), np.linalg.det(x) * np.linalg.inv(x).T,
                               rtol=1e-10, atol=1e-12)
