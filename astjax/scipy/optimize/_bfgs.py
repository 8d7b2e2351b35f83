"""BFGS (Nocedal and Wright, Algorithm 6.1) on a flat vector: the inverse Hessian estimate H
updated from each step s and gradient change y as (I - rho s y^T) H (I - rho y s^T) + rho s s^T,
the step length from a strong-Wolfe line search, until |grad| < gtol."""
from typing import NamedTuple

import numpy as np

import astjax.numpy as jnp

from ...control import while_loop
from ._line_search import line_search


class BFGSResults(NamedTuple):
    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def minimize_bfgs(value_and_grad, x0, maxiter=None, norm=np.inf, gtol=1e-5,
                  line_search_maxiter=10):
    """Minimise f from x0, given value_and_grad: x -> (f(x), grad f(x))."""
    x0 = jnp.asarray(x0)
    maxiter = int(np.size(x0) * 200 if maxiter is None else maxiter)
    d = int(x0.shape[0])
    f0, g0 = value_and_grad(x0)
    state = BFGSResults(converged=jnp.linalg.norm(g0, ord=norm) < gtol, failed=np.bool_(False),
                        k=np.int32(0), nfev=np.int32(1), ngev=np.int32(1), nhev=np.int32(0),
                        x_k=x0, f_k=f0, g_k=g0, H_k=jnp.eye(d, dtype=x0.dtype),
                        old_old_fval=f0 + jnp.linalg.norm(g0) / 2, status=np.int32(0),
                        line_search_status=np.int32(0))

    def more(s):
        return (~s.converged) & (~s.failed) & (s.k < maxiter)

    def step(s):
        p = -(s.H_k @ s.g_k)
        search = line_search(value_and_grad, s.x_k, p, old_fval=s.f_k,
                             old_old_fval=s.old_old_fval, gfk=s.g_k,
                             maxiter=line_search_maxiter)
        step_ = search.a_k * p
        y = search.g_k - s.g_k
        rho = 1.0 / jnp.dot(y, step_)
        w = jnp.eye(d, dtype=rho.dtype) - rho * step_[:, None] * y[None, :]
        h = w @ s.H_k @ w.T + rho * step_[:, None] * step_[None, :]
        h = jnp.where(jnp.isfinite(rho), h, s.H_k)
        return BFGSResults(converged=jnp.linalg.norm(search.g_k, ord=norm) < gtol,
                           failed=search.failed, k=s.k + 1, nfev=s.nfev + search.nfev,
                           ngev=s.ngev + search.ngev, nhev=s.nhev, x_k=s.x_k + step_,
                           f_k=search.f_k, g_k=search.g_k, H_k=h, old_old_fval=s.f_k,
                           status=s.status, line_search_status=search.status)

    s = while_loop(more, step, state)
    status = jnp.where(s.converged, 0, jnp.where(s.k == maxiter, 1,
                                                 jnp.where(s.failed, 2 + s.line_search_status,
                                                           -1)))
    return s._replace(status=jnp.asarray(status).astype(np.int32))
