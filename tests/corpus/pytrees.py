"""Pytrees in and out (dicts, tuples, namedtuples, nested lists), indexing, slicing and `.at[]`."""
from collections import namedtuple

import numpy as np
from hypothesis import strategies as st

import astjax.numpy as jnp

from .registry import Case, array, composite, one_array, shapes, side

Stats = namedtuple("Stats", ["mean", "var", "count"])
State = namedtuple("State", ["pos", "vel"])


def summary(x):
    mean = jnp.mean(x, axis=0)
    return Stats(mean, jnp.mean((x - mean) ** 2, axis=0), x.shape[0])


def euler_step(state, dt):
    """state: {"pos", "vel"}; dt static."""
    acc = -jnp.sin(state["pos"])
    return {"pos": state["pos"] + dt * state["vel"], "vel": state["vel"] + dt * acc}


def leapfrog(state):
    """A namedtuple in and out, with a static-range loop."""
    pos, vel = state
    for _ in range(3):
        vel = vel - 0.05 * pos
        pos = pos + 0.1 * vel
        vel = vel - 0.05 * pos
    return State(pos, vel)


def pair_ops(pair):
    a, b = pair
    return (a + b, a * b), [a - b]


def nested_params(params, x):
    h = x
    for w in params["layers"]:
        h = jnp.tanh(h @ w)
    return h * params["scale"], {"norm": jnp.sum(h * h), "layers": len(params["layers"])}


def slicing(x):
    return x[::2], x[1:], x[..., 0], x[None, -1], x[::-1], x[:, 1:] if x.ndim == 2 else x[:-1]


def gather(x, idx):
    return x[idx], jnp.take(x, idx, axis=0), x[idx].sum(axis=0)


def at_updates(x):
    y = x.at[0].set(1.0)
    y = y.at[1:].add(x[:-1] * 2.0)
    y = y.at[-1].multiply(3.0)
    return y.at[::2].get(), y


def at_updates_reference(x):
    y = np.array(x, copy=True)
    y[0] = 1.0
    y[1:] += x[:-1] * 2.0
    y[-1] *= 3.0
    return y[::2], y


def at_dynamic_index(x, i):
    """i is a 0-d integer array: a dynamic index."""
    return x.at[i].set(0.0), x[i] * 2.0, x.at[i].add(x[0])


def at_dynamic_index_reference(x, i):
    y = np.array(x, copy=True)
    y[i] = 0.0
    z = np.array(x, copy=True)
    z[i] += x[0]
    return y, x[i] * 2.0, z


def setitem_style(x, v):
    """x[i] = v on a local array is rewritten to x = x.at[i].set(v)."""
    x = x * 1.0
    x[0] = v
    x[-1] = x[-1] + v
    return x


@composite
def _euler_args(draw, dtype):
    n = draw(side())
    return ({"pos": draw(array(dtype, (n,))), "vel": draw(array(dtype, (n,)))},
            draw(st.sampled_from([0.1, 0.05])))


@composite
def _leapfrog_args(draw, dtype):
    s = draw(shapes())
    return (State(draw(array(dtype, s)), draw(array(dtype, s))),)


@composite
def _pair_args(draw, dtype):
    s = draw(shapes())
    return ((draw(array(dtype, s)), draw(array(dtype, s))),)


@composite
def _nested_args(draw, dtype):
    n, batch = draw(side()), draw(side())
    layers = [draw(array(dtype, (n, n), -1.0, 1.0)) for _ in range(draw(side(1, 3)))]
    return {"layers": layers, "scale": draw(array(dtype, ()))}, draw(array(dtype, (batch, n)))


@composite
def _slicing_args(draw, dtype):
    return (draw(array(dtype, shapes(2, 2, min_side=2))),)


@composite
def _gather_args(draw, dtype):
    x = draw(array(dtype, shapes(1, 2)))
    idx = np.array(draw(st.lists(st.integers(-x.shape[0], x.shape[0] - 1), min_size=1,
                                 max_size=4)), dtype=np.int64)
    return x, idx


@composite
def _dynamic_index_args(draw, dtype):
    x = draw(array(dtype, shapes(1, 2)))
    return x, np.int64(draw(st.integers(-x.shape[0], x.shape[0] - 1)))


@composite
def _setitem_args(draw, dtype):
    return draw(array(dtype, shapes(1, 1, min_side=2))), draw(array(dtype, ()))


CASES = [
    Case("summary", summary, one_array(shapes(1, 2, min_side=2)), jax=True,
         tags=("pytree-out", "namedtuple", "static-out")),
    Case("euler_step", euler_step, _euler_args, static_argnums=(1,), jax=True,
         tags=("pytree-in", "pytree-out", "static")),
    Case("leapfrog", leapfrog, _leapfrog_args, jax=True,
         tags=("pytree-in", "pytree-out", "namedtuple", "static-for")),
    Case("pair_ops", pair_ops, _pair_args, jax=True, tags=("pytree-in", "pytree-out")),
    Case("nested_params", nested_params, _nested_args, jax=True,
         tags=("pytree-in", "pytree-out", "static-out")),
    Case("slicing", slicing, _slicing_args, jax=True, tags=("indexing", "tuple-out")),
    Case("gather", gather, _gather_args, jax=True, tags=("indexing", "integer-in")),
    Case("at_updates", at_updates, one_array(shapes(1, 1, min_side=2)),
         reference=at_updates_reference, jax=True, tags=("indexing", "at")),
    Case("at_dynamic_index", at_dynamic_index, _dynamic_index_args,
         reference=at_dynamic_index_reference, jax=True, tags=("indexing", "at", "integer-in")),
    Case("setitem_style", setitem_style, _setitem_args,
         tags=("indexing", "at", "setitem")),
]
