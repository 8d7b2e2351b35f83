"""astjax.nn against jax.nn (the oracle), eagerly and compiled by hand; dtypes kept."""
import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import astjax.nn as nn
from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.bind import Builder, building
from astjax.core.ir import Var

jax = pytest.importorskip("jax")
import jax.nn as jnn  # noqa: E402
import jax.scipy.special as jsp  # noqa: E402


def compiled(fn, *args):
    """fn on abstract Vars shaped like args, its equations evaluated on args' values."""
    params = [Var(AVal(np.shape(a), np.asarray(a).dtype)) for a in args]
    builder = Builder()
    with building(builder):
        out = fn(*params)
    env = {v.id: np.asarray(a) for v, a in zip(params, args)}
    for eqn in builder.eqns:
        ins = [env[a.id] if isinstance(a, Var) else a.value for a in eqn.ins]
        env[eqn.outs[0].id] = np.asarray(primitives.get(eqn.prim).impl(*ins, **eqn.params))
    return out, env[out.id]


def check(ours, theirs, x, rtol=2e-6):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = np.asarray(ours(x)), np.asarray(theirs(x))
        assert (got.shape, got.dtype) == (want.shape, want.dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
        out, value = compiled(ours, x)
    assert (out.shape, out.dtype) == (got.shape, got.dtype)
    np.testing.assert_array_equal(value, got)


# a few fixed shapes: the JAX oracle compiles once per shape, which would dominate the run time
inputs = st.sampled_from([(7,), (2, 5), (2, 3, 4)]).flatmap(
    lambda shape: hnp.arrays(np.float32, shape, elements=st.floats(-8, 8, width=32)))

ACTIVATIONS = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "gelu", "elu",
               "leaky_relu", "log_sigmoid", "selu", "celu", "hard_tanh", "hard_sigmoid",
               "hard_silu", "soft_sign"]


@pytest.mark.parametrize("name", ACTIVATIONS)
@settings(max_examples=20, deadline=None)
@given(x=inputs)
def test_activations_match_jax(name, x):
    check(getattr(nn, name), getattr(jnn, name), x)


@settings(max_examples=20, deadline=None)
@given(x=inputs)
def test_exact_gelu_matches_jax(x):
    check(lambda a: nn.gelu(a, approximate=False), lambda a: jnn.gelu(a, approximate=False), x)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@settings(max_examples=30, deadline=None)
@given(x=inputs, data=st.data())
def test_softmax_family_matches_jax(name, x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda a: getattr(nn, name)(a, axis=axis), lambda a: getattr(jnn, name)(a, axis=axis), x)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_family_matches_jax_on_infinities_and_where(name):
    """JAX's formula: a row holding +inf is all nan, one of -inf only is nan, and `where`
    leaves elements out (softmax 0, log_softmax -inf there)."""
    x = np.array([[1.0, -np.inf, 2.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 0.0],
                  [np.nan, 1.0, 2.0], [0.5, 1.5, -1.0]], np.float32)
    check(getattr(nn, name), getattr(jnn, name), x)
    where = np.array([[True, False, True], [True, True, False], [False, True, True],
                      [True, True, True], [False, False, False]])
    check(lambda a: getattr(nn, name)(a, where=where),
          lambda a: getattr(jnn, name)(a, where=where), x)


@settings(max_examples=30, deadline=None)
@given(x=inputs, data=st.data(), keepdims=st.booleans())
def test_logsumexp_matches_jax(x, data, keepdims):
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    check(lambda a: nn.logsumexp(a, axis, keepdims=keepdims),
          lambda a: jsp.logsumexp(a, axis, keepdims=keepdims), x)


def test_logsumexp_is_stable():
    big = np.array([1000.0, 1000.0, -np.inf], np.float32)
    check(nn.logsumexp, jsp.logsumexp, big)
    check(nn.logsumexp, jsp.logsumexp, np.full(3, -np.inf, np.float32))
    check(nn.softplus, jnn.softplus, np.array([-100.0, 0.0, 100.0], np.float32))


def _standardize_reference(x):
    """(x - mean) / sqrt(var + eps) in float64 with the two-pass variance, cast back."""
    x64 = np.asarray(x, np.float64)
    mean = x64.mean(-1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdims=True)
    return ((x64 - mean) / np.sqrt(var + 1e-5)).astype(np.asarray(x).dtype)


@settings(max_examples=20, deadline=None)
@given(x=inputs)
def test_standardize_matches_a_float64_reference(x):
    # Not JAX: jax.nn.standardize takes var = mean(x^2) - mean(x)^2, which cancels in float32
    # when the variance is small against the mean; the two-pass form here is the accurate one.
    check(nn.standardize, _standardize_reference, x, rtol=2e-3)


def test_standardize_matches_jax_on_well_spread_input():
    x = np.linspace(-2.0, 3.0, 12, dtype=np.float32).reshape(3, 4)
    check(nn.standardize, jnn.standardize, x, rtol=2e-5)


def test_one_hot_like_jax():
    """In the default float dtype (float64: astjax's jax_enable_x64 is on) unless asked."""
    labels = np.array([[0, 2], [1, 5]])
    with jax.enable_x64(True):
        check(lambda a: nn.one_hot(a, 3), lambda a: jnn.one_hot(a, 3), labels)
        check(lambda a: nn.one_hot(a, 4, axis=0), lambda a: jnn.one_hot(a, 4, axis=0), labels)
        check(lambda a: nn.one_hot(a, 3, dtype=np.int32),
              lambda a: jnn.one_hot(a, 3, dtype=np.int32), labels)
        check(lambda a: nn.one_hot(a, 3, dtype=np.float32),
              lambda a: jnn.one_hot(a, 3, dtype=np.float32), labels)


def test_float64_stays_float64():
    x = np.linspace(-2, 2, 5)
    for name in ("gelu", "softplus", "silu", "elu", "softmax"):
        assert getattr(nn, name)(x).dtype == np.float64


@pytest.mark.parametrize("name", ["identity", "tanh", "mish", "squareplus", "log1mexp",
                                  "sparse_plus", "sparse_sigmoid"])
def test_more_activations_as_jax(name):
    x = np.linspace(-3.0, 3.0, 13)
    x = np.abs(x) + 0.01 if name == "log1mexp" else x
    with jax.enable_x64(True):
        want = np.asarray(getattr(jnn, name)(x))
    np.testing.assert_allclose(astjax_jit(getattr(nn, name))(x), want, rtol=1e-12)


def astjax_jit(fn):
    import astjax
    return astjax.jit(lambda x: fn(x))


def test_logmeanexp_as_jax():
    m = np.linspace(-3.0, 3.0, 12).reshape(3, 4)
    with jax.enable_x64(True):
        np.testing.assert_allclose(nn.logmeanexp(m, axis=1), jnn.logmeanexp(m, axis=1),
                                   rtol=1e-12)


@pytest.mark.parametrize("options", [{}, {"bias": True}, {"mask": True},
                                     {"is_causal": True, "scale": 0.3}], ids=str)
def test_dot_product_attention_as_jax(options):
    """Grouped-query attention (4 query heads, 2 key/value heads); JAX's softmax runs in
    float32 whatever the dtype, so the two agree to float32's precision."""
    import astjax
    rng = np.random.default_rng(0)
    s = 5 if options.get("is_causal") else 6
    q, k, v = rng.normal(size=(2, 5, 4, 8)), rng.normal(size=(2, s, 2, 8)), rng.normal(size=(2, s, 2, 8))
    kwargs = dict(options)
    if kwargs.pop("bias", False):
        kwargs["bias"] = rng.normal(size=(2, 4, 5, s))
    if kwargs.pop("mask", False):
        kwargs["mask"] = rng.uniform(size=(2, 1, 5, s)) > 0.3
    got = astjax.jit(lambda a, b, c: nn.dot_product_attention(a, b, c, **kwargs))(q, k, v)
    with jax.enable_x64(True):
        want = np.asarray(jnn.dot_product_attention(q, k, v, **kwargs))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.dot_product_attention(q[0], k[0], v[0]),
                               jnn.dot_product_attention(q[0], k[0], v[0]), rtol=1e-5, atol=1e-6)
