"""Optimizers as `jax.example_libraries.optimizers` defines them: each is a triple

    opt_init(params) -> opt_state
    opt_update(step, grads, opt_state) -> opt_state
    get_params(opt_state) -> params

over any pytree of parameters. The state is a pytree (`OptimizerState`), so an update step
can be compiled: `jit(lambda i, g, s: opt_update(i, g, s))`. Written for astjax with
astjax.numpy; the update rules are JAX's.
"""
import functools
from collections import namedtuple
from typing import Any, Callable, NamedTuple

import numpy as np

from .. import numpy as jnp
from ..tree_util import register_pytree_node, tree_flatten, tree_leaves, tree_map, tree_unflatten

OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
register_pytree_node(OptimizerState,  # the states are leaves; the structures, static data
                     lambda s: ((s.packed_state,), (s.tree_def, tuple(s.subtree_defs))),
                     lambda aux, children: OptimizerState(children[0], aux[0], list(aux[1])))


class Optimizer(NamedTuple):
    init_fn: Callable
    update_fn: Callable
    params_fn: Callable


Schedule = Callable[[int], float]


def optimizer(opt_maker):
    """Turns an optimizer for one array (init, update, get_params) into one for pytrees."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            states = [tree_flatten(init(x0)) for x0 in x0_flat]
            return OptimizerState([s for s, _ in states], tree, [t for _, t in states])

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, grad_tree_def = tree_flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(f"optimizer update: the gradient's structure {grad_tree_def} "
                                f"is not the parameters' {tree}")
            states = [tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
            new = [tree_flatten(update(i, g, s)) for g, s in zip(grad_flat, states)]
            return OptimizerState([s for s, _ in new], tree, [t for _, t in new])

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = [tree_unflatten(t, s) for t, s in zip(subtrees, states_flat)]
            return tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    step_size = make_schedule(step_size)
    return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)


@optimizer
def momentum(step_size, mass):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


@optimizer
def nesterov(step_size, mass):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(jnp.where(g_sq > 0, g_sq, 1.0)), 0.0)
        m = (1.0 - momentum) * (g * inv_sqrt) + momentum * m
        return x - step_size(i) * m, g_sq, m
    return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0))), update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        return x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps), avg_sq_grad
    return (lambda x0: (x0, jnp.zeros_like(x0))), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom
    return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0))), update, _first


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))
        vhat = v / (1 - jnp.asarray(b2, m.dtype) ** (i + 1))
        return x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps), m, v
    return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0))), update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - jnp.asarray(b1, m.dtype) ** (i + 1))) * m / (u + eps)
        return x, m, u
    return (lambda x0: (x0, jnp.zeros_like(x0), jnp.zeros_like(x0))), update, _first


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3: per-axis accumulators of squared gradients (memory-efficient adaptivity)."""
    step_size = make_schedule(step_size)

    def along(ndim, v, axis):
        index = [None] * ndim
        index[axis] = slice(None)
        return v[tuple(index)]

    def init(x0):
        shape = tuple(np.shape(x0))
        x0 = jnp.atleast_1d(x0)
        return x0, jnp.zeros_like(x0), [jnp.zeros(n, dtype=x0.dtype) for n in x0.shape], shape

    def update(i, g, state):
        x, m, vs, shape = state
        g = jnp.reshape(g, x.shape)
        accum = functools.reduce(jnp.minimum, [along(g.ndim, v, k) for k, v in enumerate(vs)])
        accum = accum + jnp.square(g)
        inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(jnp.where(accum > 0, accum, 1.0)), 0.0)
        m = (1.0 - momentum) * (g * inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [jnp.max(accum, axis=tuple(a for a in range(x.ndim) if a != k))
              for k in range(x.ndim)]
        return x, m, vs, shape

    def get_params(state):
        x, _, _, shape = state
        return jnp.reshape(x, shape)
    return init, update, get_params


# ---------------------------------------------------------------- learning-rate schedules
def constant(step_size) -> Schedule:
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate):
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    if staircase:
        return lambda i: step_size / (1 + decay_rate * jnp.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    def schedule(step_num):
        step_num = jnp.minimum(step_num, decay_steps)
        return (1 - step_num / decay_steps) ** power * (step_size - final_step_size) + \
            final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any):
    boundaries, values = np.asarray(boundaries), np.asarray(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if boundaries.shape[0] != values.shape[0] - 1:
        raise ValueError("values must have one more element than boundaries")
    return lambda i: jnp.asarray(values)[jnp.sum(i > jnp.asarray(boundaries))]


def make_schedule(scalar_or_schedule) -> Schedule:
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(f"a step size must be a number or a schedule, not {type(scalar_or_schedule)}")


# ---------------------------------------------------------------- utilities
def l2_norm(tree):
    """The l2 norm of all the arrays of a pytree, as one vector."""
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in tree_leaves(tree)))


def clip_grads(grad_tree, max_norm):
    """Gradients scaled down so that their l2 norm is at most max_norm."""
    norm = l2_norm(grad_tree)
    factor = jnp.where(norm < max_norm, 1.0, max_norm / norm)
    return tree_map(lambda g: g * factor, grad_tree)


class JoinPoint:
    """A marker of where an optimizer state's subtree joins its parameters' tree."""
    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """The state as a pytree of JoinPoints (for saving with pickle)."""
    states_flat, tree, subtrees = opt_state
    subtrees = [JoinPoint(tree_unflatten(t, s)) for t, s in zip(subtrees, states_flat)]
    return tree_unflatten(tree, subtrees)


def pack_optimizer_state(marked_pytree):
    """The inverse of unpack_optimizer_state."""
    joins, tree = tree_flatten(marked_pytree, is_leaf=lambda x: isinstance(x, JoinPoint))
    flat = [tree_flatten(j.subtree) for j in joins]
    return OptimizerState([s for s, _ in flat], tree, [t for _, t in flat])
