"""The non-symmetric eigen- and Schur decompositions (primitives, on every backend) and the
rest of jax.scipy.linalg: values against JAX (float64) on every backend, gradients against
JAX's and central differences, the special matrices JAX only approximates against SciPy."""
import numpy as np
import pytest

import astjax
import linalg_more_cases as cases
from test_linalg import as_list, central_differences, jax_run

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(11)
A = RNG.normal(size=(4, 4))
B = RNG.normal(size=(4, 2))
SPD = A @ A.T + np.eye(4)
C = RNG.normal(size=4)
R = RNG.normal(size=5)
BACKENDS = ["numpy", "numba", "xla"]

VALUES = [(cases.eigen_invariants, (A,)), (cases.left_eigenvectors, (A,)),
          (cases.schur_invariants, (A,)), (cases.real_schur, (A,)),
          (cases.exponentials, (A, SPD)),
          (cases.polar_and_hessenberg, (A, SPD)), (cases.schur_functions, (A, SPD)),
          (cases.sylvester_and_qr, (A, B)), (cases.special_matrices, (C, R)),
          (cases.polynomials, (R,))]


# The compositions of many matrix products take Numba 20-60 s each to compile (its cold
# compile grows faster than linearly in a function's size); on Numba the suite runs the cases
# whose primitives (eig, schur, complex triangular solves) have Numba lowerings of their own.
SLOW_ON_NUMBA = {cases.exponentials, cases.schur_functions, cases.special_matrices,
                 cases.schur_invariants}  # (real_schur runs the schur primitive on Numba)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fun, args", VALUES, ids=[f.__name__ for f, _ in VALUES])
def test_values_as_jax(fun, args, backend):
    if backend == "numba" and fun in SLOW_ON_NUMBA:
        pytest.skip("a composition of the primitives tested on Numba elsewhere; slow to compile")
    got = as_list(astjax.jit(fun, backend=backend)(*args))
    want = jax_run(fun, args)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, (k, g.shape, w.shape)
        assert g.dtype.kind == w.dtype.kind, (k, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-9, err_msg=f"output {k}")


LOSSES = [(cases.loss_eigvals, (A,)), (cases.loss_expm, (A / 3,)), (cases.loss_polar, (A,)),
          (cases.loss_special_matrices, (C,))]
JAX_CANNOT = {cases.loss_polar}  # its polar is a while loop JAX cannot reverse-differentiate


@pytest.mark.parametrize("backend", ["numpy", "xla"])
@pytest.mark.parametrize("fun, args", LOSSES, ids=[f.__name__ for f, _ in LOSSES])
def test_gradients_as_jax_and_differences(fun, args, backend):
    got = astjax.jit(astjax.grad(fun), backend=backend)(*args)
    if fun not in JAX_CANNOT:
        np.testing.assert_allclose(got, jax_run(fun, args, jax.grad)[0], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(got, central_differences(astjax.jit(fun), args, 0),
                               rtol=1e-5, atol=1e-6)


def test_eigvals_gradient_on_numba_and_batched():
    stack = RNG.normal(size=(3, 4, 4))
    got = astjax.jit(astjax.vmap(astjax.grad(cases.loss_eigvals)), backend="numba")(stack)
    want = [jax_run(cases.loss_eigvals, (m,), jax.grad)[0] for m in stack]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)


def test_eigenvector_derivatives_are_refused_as_in_jax():
    from astjax.errors import TransformError
    import astjax.numpy as jnp

    def loss(a):
        return jnp.sum(jnp.abs(jnp.linalg.eig(a)[1]))

    with pytest.raises(TransformError, match="eigenvectors"):
        astjax.grad(loss)(A)


def test_exact_special_matrices_against_scipy():
    """JAX computes pascal and invpascal in floating point (1e-6 off); SciPy is exact."""
    import scipy.linalg as sl
    from astjax.scipy import linalg
    for n in (1, 4, 7):
        for kind in ("symmetric", "lower", "upper"):
            np.testing.assert_array_equal(linalg.pascal(n, kind), sl.pascal(n, kind))
            np.testing.assert_array_equal(linalg.invpascal(n, kind), sl.invpascal(n, kind))
        np.testing.assert_array_equal(linalg.invhilbert(n, exact=True),
                                      sl.invhilbert(n, exact=True))
    for n, a in ((3, R[:3]), (6, R)):
        np.testing.assert_allclose(linalg.fiedler_companion(a), sl.fiedler_companion(a),
                                   rtol=1e-15)
    with pytest.raises(ValueError, match="power of 2"):
        linalg.hadamard(6)


def test_eigh_tridiagonal_against_scipy():
    import scipy.linalg as sl
    from astjax.scipy import linalg
    d, e = RNG.normal(size=6), RNG.normal(size=5)
    np.testing.assert_allclose(linalg.eigh_tridiagonal(d, e, eigvals_only=True),
                               sl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-12)
    np.testing.assert_allclose(
        linalg.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)),
        sl.eigh_tridiagonal(d, e, eigvals_only=True, select="i", select_range=(1, 3)),
        rtol=1e-12)


def test_complex_eigenvalue_gradient_as_jax_and_differences():
    import astjax.numpy as jnp
    z = RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4))

    def loss(a):
        return jnp.sum(jnp.abs(jnp.linalg.eigvals(a)) ** 1.5)

    got = astjax.grad(loss)(z)
    with jax.enable_x64(True):
        want = jax.grad(lambda a: jax.numpy.sum(jax.numpy.abs(jax.numpy.linalg.eigvals(a))
                                                ** 1.5))(z)
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)
    f = astjax.jit(loss)  # JAX's convention: grad = df/dRe - i df/dIm
    along_real = central_differences(lambda re: f(re + 1j * z.imag), (z.real,), 0)
    along_imag = central_differences(lambda im: f(z.real + 1j * im), (z.imag,), 0)
    np.testing.assert_allclose(got, along_real - 1j * along_imag, rtol=1e-5, atol=1e-6)


def test_eig_and_schur_batch_as_a_loop():
    import scipy.linalg as sl
    from astjax.scipy import linalg
    import astjax.numpy as jnp
    stack = RNG.normal(size=(3, 5, 5))
    t = astjax.vmap(lambda a: linalg.schur(a)[0])(stack)
    np.testing.assert_allclose(t, [sl.schur(m)[0] for m in stack], rtol=1e-12, atol=1e-12)
    w = astjax.vmap(jnp.linalg.eigvals)(stack)
    np.testing.assert_allclose(w, [np.linalg.eigvals(m) for m in stack], rtol=1e-12)
