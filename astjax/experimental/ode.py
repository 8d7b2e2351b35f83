"""`jax.experimental.ode.odeint`: the Dormand-Prince 5(4) method with adaptive steps, as JAX
computes it (the same tableau, first step, error norm, step-size rule and dense output), so a
JAX program integrates to the same values.

One while loop takes the steps; once they pass the next requested time, the last step's quartic
interpolant gives the value there (as JAX's loop does, per requested time). Its derivatives
are those of this computation itself, through the loop (astjax differentiates while loops in
reverse mode; JAX solves an adjoint ODE backwards instead), so they agree with JAX's to within
the solver's tolerances.
"""
import numpy as np

import astjax.numpy as jnp
from astjax import lax
from astjax.errors import TransformError
from astjax.tree_util import tree_flatten, tree_unflatten

# The Dormand-Prince tableau: stage times, stage weights, the fifth-order solution, its error
# against the embedded fourth-order one, and the weights of the midpoint for dense output.
_ALPHA = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_BETA = np.array([
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]])
_SOLUTION = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
_ERROR = np.array([35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085,
                   125 / 192 - 451 / 720, -2187 / 6784 - -12231 / 42400,
                   11 / 84 - 649 / 6300, -1 / 60])
_MIDPOINT = np.array([6025192743 / 30085553152, 0, 51252292925 / 65400821598,
                      -2691868925 / 45128329728, 187940372067 / 1594534317056,
                      -1776094331 / 19743644256, 11237099 / 235043384]) / 2


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """The solution of dy/dt = func(y, t, *args) from y(t[0]) = y0 at each time of `t`
    (increasing floats): y0's structure (a pytree of arrays) with a leading axis of len(t).
    `rtol`/`atol` bound each step's local error, `mxstep` the steps between two times, and
    `hmax` a step's length."""
    t = jnp.asarray(t)
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TransformError(f"odeint's times must be floats, not {t.dtype}",
                             hint="pass t as a float array, e.g. jnp.linspace(0., 1., 11)")
    leaves, tree = tree_flatten(y0)
    leaves = [jnp.asarray(leaf) for leaf in leaves]
    flat = jnp.concatenate([jnp.ravel(leaf) for leaf in leaves])

    def flat_func(y, time):
        out = func(_unflattened(y, leaves, tree), time, *args)
        return jnp.concatenate([jnp.ravel(jnp.asarray(v)) for v in tree_flatten(out)[0]])

    ys = _integrate(flat_func, rtol, atol, mxstep, hmax, flat, t)
    return _unflattened(ys, leaves, tree, batch=(t.shape[0],))


def _unflattened(flat, leaves, tree, batch=()):
    """The pytree whose leaves are consecutive pieces of `flat`'s last axis."""
    pieces, start = [], 0
    for leaf in leaves:
        size = int(np.prod(leaf.shape, dtype=np.int64))
        piece = flat[..., start:start + size].reshape(batch + tuple(leaf.shape))
        pieces.append(piece.astype(leaf.dtype))
        start += size
    return tree_unflatten(tree, pieces)


def _integrate(f, rtol, atol, mxstep, hmax, y0, ts):
    """The solution at each of `ts`: one loop that either takes a step or, once the steps
    have passed the next requested time (or may go no further), writes the value there."""
    f0 = f(y0, ts[0])
    dt = jnp.clip(_first_step(f, ts[0], y0, 4, rtol, atol, f0), 0.0, hmax)
    ys = jnp.zeros((ts.shape[0],) + y0.shape, y0.dtype).at[0].set(y0)
    start = (1, 0, y0, f0, ts[0], dt, ts[0], jnp.stack([y0] * 5), ys)

    def write(state):
        j, _, y, fy, t, dt, last_t, coeffs, ys = state
        where = (ts[j] - last_t) / (t - last_t)
        ys = ys.at[j].set(jnp.polyval(coeffs, where.astype(coeffs.dtype)))
        return j + 1, 0, y, fy, t, dt, last_t, coeffs, ys

    def step(state):
        j, i, y, fy, t, dt, last_t, coeffs, ys = state
        y1, f1, error, k = _stage(f, y, fy, t, dt)
        ratio = _error_ratio(error, rtol, atol, y, y1)
        dt_next = jnp.clip(_next_step(dt, ratio), 0.0, hmax)
        taken = (y1, f1, t + dt, dt_next, t, _interpolant(y, y1, k, dt))
        kept = (y, fy, t, dt_next, last_t, coeffs)
        y, fy, t, dt, last_t, coeffs = (jnp.where(ratio <= 1.0, a, b)
                                        for a, b in zip(taken, kept))
        return j, i + 1, y, fy, t, dt, last_t, coeffs, ys

    def body(state):
        j, i, _, _, t, dt, _, _, _ = state
        passed = (t >= ts[j]) | (i >= mxstep) | (dt <= 0)
        return lax.cond(passed, write, step, state)

    return lax.while_loop(lambda state: state[0] < ts.shape[0], body, start)[-1]


def _stage(f, y0, f0, t0, dt):
    """One Dormand-Prince step: (y1, f(y1), the error estimate, the seven stage slopes)."""
    h = dt.astype(f0.dtype)
    beta, k = jnp.asarray(_BETA, f0.dtype), jnp.zeros((7, f0.shape[0]), f0.dtype)
    k = k.at[0, :].set(f0)
    for i in range(1, 7):
        yi = y0 + h * jnp.dot(beta[i - 1, :], k)
        k = k.at[i, :].set(f(yi, t0 + dt * _ALPHA[i - 1]))
    y1 = h * jnp.dot(jnp.asarray(_SOLUTION, f0.dtype), k) + y0
    return y1, k[-1], h * jnp.dot(jnp.asarray(_ERROR, f0.dtype), k), k


def _interpolant(y0, y1, k, dt):
    """The quartic through the step (ends, slopes and midpoint), highest power first."""
    h = dt.astype(y0.dtype)
    y_mid = y0 + h * jnp.dot(jnp.asarray(_MIDPOINT, y0.dtype), k)
    dy0, dy1 = k[0], k[-1]
    a = -2.0 * h * dy0 + 2.0 * h * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * h * dy0 - 3.0 * h * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * h * dy0 + h * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return jnp.stack([a, b, c, h * dy0, y0])


def _first_step(f, t0, y0, order, rtol, atol, f0):
    """Hairer, Norsett and Wanner's starting step (Solving ODEs I, sec. II.4)."""
    scale = (atol + jnp.abs(y0) * rtol).astype(y0.dtype)
    d0, d1 = jnp.linalg.norm(y0 / scale), jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = f(y0 + h0.astype(y0.dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where((d1 <= 1e-15) & (d2 <= 1e-15), jnp.maximum(1e-6, h0 * 1e-3),
                   (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return jnp.minimum(100.0 * h0, h1)


def _error_ratio(error, rtol, atol, y0, y1):
    """The root mean square of the error over its tolerance (accepted when at most 1)."""
    tolerance = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = error / tolerance.astype(error.dtype)
    squares = ratio.real ** 2 + ratio.imag ** 2 if jnp.iscomplexobj(ratio) else ratio ** 2
    return jnp.sqrt(jnp.mean(squares))


def _next_step(last, ratio, safety=0.9, grow=10.0, shrink=0.2, order=5.0):
    shrink = jnp.where(ratio < 1, 1.0, shrink)
    factor = jnp.minimum(grow, jnp.maximum(ratio ** (-1.0 / order) * safety, shrink))
    return jnp.where(ratio == 0, last * grow, last * factor)


__all__ = ["odeint"]
