"""astjax.example_libraries.stax against jax.example_libraries.stax (the oracle): the same
output shapes from init and the same outputs from apply on the same parameters, for a network
using every layer; parameters initialise with the right statistics; a training step compiles."""
import numpy as np
import pytest

import astjax
from astjax import random
from astjax.example_libraries import optimizers, stax

jax = pytest.importorskip("jax")
from jax.example_libraries import stax as jstax  # noqa: E402


def network(s):
    return s.serial(
        s.Conv(4, (3, 3), padding="SAME"), s.BatchNorm(), s.Relu,
        s.MaxPool((2, 2), strides=(2, 2)),
        s.GeneralConv(("NHWC", "HWIO", "NHWC"), 3, (2, 2), strides=(1, 1)), s.Tanh,
        s.AvgPool((2, 2), padding="SAME"), s.SumPool((1, 2)),
        s.FanOut(2), s.parallel(s.Gelu, s.Sigmoid), s.FanInSum,
        s.Flatten, s.Dense(5), s.Elu, s.Dense(3), s.LogSoftmax)


def test_network_matches_jax():
    init, apply = network(stax)
    jinit, japply = network(jstax)
    shape, params = init(random.PRNGKey(0), (2, 8, 8, 1))
    with jax.enable_x64(True):
        jshape, _ = jinit(jax.random.PRNGKey(0), (2, 8, 8, 1))
    assert tuple(shape) == tuple(jshape)
    x = np.random.default_rng(0).normal(size=(2, 8, 8, 1))
    got = apply(params, x)
    with jax.enable_x64(True):
        want = np.asarray(japply(jax.tree_util.tree_map(np.asarray, params), x))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
    compiled = astjax.jit(apply)(params, x)
    np.testing.assert_allclose(np.asarray(compiled), want, rtol=1e-10, atol=1e-12)


def test_initialisers_have_glorot_statistics():
    _, (W, b) = stax.Dense(400)[0](random.PRNGKey(1), (3, 300))
    assert W.shape == (300, 400) and b.shape == (400,)
    np.testing.assert_allclose(np.std(W), np.sqrt(2.0 / 700), rtol=0.05)
    assert np.all(np.abs(W) <= 2 * np.sqrt(2.0 / 700) / .87962566103423978 + 1e-12)


def test_dropout_and_a_compiled_training_step():
    init, apply = stax.serial(stax.Dense(8), stax.Relu, stax.Dropout(0.5), stax.Dense(1))
    _, params = init(random.PRNGKey(2), (-1, 3))
    x = np.random.default_rng(3).normal(size=(16, 3))
    y = x.sum(axis=1, keepdims=True)
    with pytest.raises(ValueError):
        apply(params, x)
    opt_init, opt_update, get_params = optimizers.adam(0.05)

    def loss(p, key):
        return astjax.numpy.mean((apply(p, x, rng=key) - y) ** 2)

    @astjax.jit
    def step(i, state, key):
        return opt_update(i, astjax.grad(loss)(get_params(state), key), state)

    state = opt_init(params)
    first = float(loss(params, random.PRNGKey(0)))
    for i in range(60):
        state = step(i, state, random.fold_in(random.PRNGKey(4), i))
    assert float(loss(get_params(state), random.PRNGKey(0))) < 0.5 * first
