"""astjax.scipy.optimize: `minimize` with method='BFGS', as jax.scipy.optimize has it. The
objective is differentiated by astjax.value_and_grad, so it may contain Python control flow on
arrays; the iteration is a while loop (it compiles, and batches under vmap)."""
from typing import NamedTuple

import astjax.numpy as jnp

from ...core.hooks import transformation
from ._bfgs import minimize_bfgs
from ._line_search import line_search  # noqa: F401


class OptimizeResults(NamedTuple):
    x: object
    success: object
    status: object
    fun: object
    jac: object
    hess_inv: object
    nfev: object
    njev: object
    nit: object


def minimize(fun, x0, args=(), *, method: str, tol=None, options=None):
    """Minimise fun(x, *args) over a flat vector x from x0 (method 'BFGS'); tol is gtol."""
    if method.lower() != "bfgs":
        raise ValueError(f"minimize: method {method!r} is not supported (use 'BFGS')")
    options = dict(options or {})
    if tol is not None:
        options.setdefault("gtol", tol)
    x0 = jnp.asarray(x0)
    if x0.ndim != 1:
        raise ValueError("minimize: x0 must be a 1-D array, as in JAX")
    differentiated = transformation("value_and_grad")(fun)  # (fun itself: its source is read)
    results = minimize_bfgs(lambda x: differentiated(x, *args), x0, **options)
    return OptimizeResults(x=results.x_k, success=results.converged & ~results.failed,
                           status=results.status, fun=results.f_k, jac=results.g_k,
                           hess_inv=results.H_k, nfev=results.nfev, njev=results.ngev,
                           nit=results.k)
