"""`jax.test_util.check_grads`: a function's derivatives (forward and reverse mode, to any
order) checked against central finite differences, as JAX's is used in libraries' own tests.

Forward mode compares `jvp`'s tangent with the difference quotient along a random tangent;
reverse mode checks `vjp` by the inner-product identity <t, vjp(c)> = <jvp(t), c> for random
t and c. Higher orders check the derivatives of those functions in turn."""
import functools

import numpy as np

from .transforms import jvp, vjp
from .tree_util import tree_leaves, tree_map

EPS = 1e-4
# (JAX's default gradient tolerances, by dtype)
_TOLERANCE = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 2e-3,
              np.dtype(np.float64): 1e-5, np.dtype(np.complex64): 2e-3,
              np.dtype(np.complex128): 1e-5}


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Raises AssertionError where f's derivatives up to `order` disagree with finite
    differences (args: a tuple of f's arguments, arrays or pytrees of them)."""
    args = tuple(args)
    eps = eps or EPS
    rng = np.random.default_rng(0)

    def check(f, args, order, what):
        if "fwd" in modes:
            _check_jvp(f, args, rng, eps, atol, rtol, f"JVP of order {order}{what}")
            if order > 1:
                check(functools.partial(jvp, f), (args, args), order - 1, " of a JVP")
        if "rev" in modes:
            _check_vjp(f, args, rng, eps, atol, rtol, f"VJP of order {order}{what}")
            if order > 1:
                def f_vjp(*primals):
                    out, pullback = vjp(f, *primals)
                    return pullback(out)
                check(f_vjp, args, order - 1, " of a VJP")
    check(f, args, order, "")


def _check_jvp(f, args, rng, eps, atol, rtol, message):
    tangent = _random_like(args, rng)
    out, tangent_out = jvp(f, args, tangent)
    _assert_close(out, f(*args), atol, rtol, message + " (primal)")
    _assert_close(tangent_out, _numerical_jvp(f, args, tangent, eps), atol, rtol, message)


def _check_vjp(f, args, rng, eps, atol, rtol, message):
    out, pullback = vjp(f, *args)
    tangent = _random_like(args, rng)
    tangent_out = _numerical_jvp(f, args, tangent, eps)
    cotangent = _random_like(out, rng)
    cotangent_out = pullback(cotangent)
    _assert_close(_inner(tangent, cotangent_out), _inner(tangent_out, cotangent), atol, rtol,
                  message)


def _numerical_jvp(f, args, tangent, eps):
    """(f(x + eps t) - f(x - eps t)) / 2 eps, computed in the arguments' own dtypes."""
    ahead = f(*_moved(args, tangent, eps))
    behind = f(*_moved(args, tangent, -eps))
    return tree_map(lambda a, b: (np.asarray(a) - np.asarray(b)) / (2 * eps), ahead, behind)


def _moved(args, tangent, step):
    return tree_map(lambda x, t: (np.asarray(x) + step * np.asarray(t)).astype(np.result_type(x)),
                    args, tangent)


def _random_like(tree, rng):
    def like(x):
        x = np.asarray(x)
        if x.dtype.kind == "c":
            return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)).astype(
                x.dtype)
        if x.dtype.kind != "f":
            return np.zeros(x.shape, x.dtype)
        return rng.standard_normal(x.shape).astype(x.dtype)
    return tree_map(like, tree)


def _inner(xs, ys) -> complex:
    return sum(np.vdot(np.asarray(x, np.complex128), np.asarray(y, np.complex128))
               for x, y in zip(tree_leaves(xs), tree_leaves(ys)))


def _assert_close(got, want, atol, rtol, message):
    got_leaves, want_leaves = tree_leaves(got), tree_leaves(want)
    assert len(got_leaves) == len(want_leaves), f"{message}: the results' structures differ"
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        default = _TOLERANCE.get(np.result_type(g.dtype, w.dtype), 1e-5)
        np.testing.assert_allclose(g, w, atol=default if atol is None else atol,
                                   rtol=default if rtol is None else rtol, err_msg=message)
