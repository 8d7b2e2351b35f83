"""float32 sin, cos and tan on the XLA backend (xla/trig.py): vector arithmetic in place of XLA's
per-element calls of the C library, for arrays whose every element is below trig.LIMIT in
magnitude. Oracle: NumPy in float64, rounded to float32; XLA's own sine beyond the limit."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.backends.xla import trig

pytest.importorskip("jaxlib", reason="the XLA backend compiles through jaxlib")


def sin_and_cos(x):
    return jnp.sin(x), jnp.cos(x)


FAST = astjax.jit(sin_and_cos, backend="xla")


def _ulps(got, x, fn):
    """|got - fn(x)| in float32 ulps of the exact value (fn in float64)."""
    exact = fn(x.astype(np.float64))
    spacing = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / spacing


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([1e-3, 1.0, 3.0, 100.0, 1e4, trig.LIMIT / 2]), st.integers(0, 2**31 - 1))
def test_within_an_ulp_below_the_limit(scale, seed):
    x = (np.random.default_rng(seed).uniform(-1, 1, 4096) * scale).astype(np.float32)
    s, c = (np.asarray(v) for v in FAST(x))
    assert _ulps(s, x, np.sin).max() <= 1.0
    assert _ulps(c, x, np.cos).max() <= 1.0


def test_near_multiples_of_half_pi_and_the_special_values():
    k = np.arange(-20000, 20000, 7, dtype=np.float64)
    near = np.concatenate([np.nextafter((k * np.pi / 2).astype(np.float32), d)
                           for d in (-np.inf, 0, np.inf)] + [(k * np.pi / 2).astype(np.float32)])
    s, c = (np.asarray(v) for v in FAST(near))
    assert _ulps(s, near, np.sin).max() <= 1.0 and _ulps(c, near, np.cos).max() <= 1.0
    special = np.zeros(2048, np.float32)
    special[:4] = [0.0, -0.0, 1e-30, -1e-30]
    s, c = (np.asarray(v) for v in FAST(special))
    assert s[0] == 0 and not np.signbit(s[0]) and s[1] == 0 and np.signbit(s[1])
    assert s[2] == np.float32(1e-30) and s[3] == np.float32(-1e-30)
    assert (c[:4] == 1.0).all()  # (not 1 - 2**-24)


@pytest.mark.parametrize("odd", [np.inf, -np.inf, np.nan, 3e5, -1e30])
def test_an_element_beyond_the_limit_takes_xlas_sine_for_the_array(odd):
    x = np.linspace(-10, 10, 2048).astype(np.float32)
    x[5] = odd
    s, c = (np.asarray(v) for v in FAST(x))
    with np.errstate(invalid="ignore"):
        want_s, want_c = np.sin(x.astype(np.float64)), np.cos(x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(s), np.isnan(want_s))
    finite = np.isfinite(want_s)
    np.testing.assert_allclose(s[finite], want_s[finite], rtol=0, atol=2e-7)
    np.testing.assert_allclose(c[finite], want_c[finite], rtol=0, atol=2e-7)


TAN = astjax.jit(jnp.tan, backend="xla")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([1e-3, 1.0, 3.0, 100.0, 1e4, trig.LIMIT / 2]), st.integers(0, 2**31 - 1))
def test_tan_within_an_ulp_below_the_limit(scale, seed):
    x = (np.random.default_rng(seed).uniform(-1, 1, 4096) * scale).astype(np.float32)
    assert _ulps(np.asarray(TAN(x)), x, np.tan).max() <= 1.0


def test_tan_near_its_poles_and_zeros_and_at_the_special_values():
    """Either side of k pi/2: even k a zero of tan, odd k a pole (-cos(r)/sin(r) there)."""
    k = np.arange(-20000, 20000, 3, dtype=np.float64)
    near = np.concatenate([np.nextafter((k * np.pi / 2).astype(np.float32), d)
                           for d in (-np.inf, 0, np.inf)])
    assert _ulps(np.asarray(TAN(near)), near, np.tan).max() <= 1.0
    special = np.zeros(2048, np.float32)
    special[:4] = [0.0, -0.0, 1e-30, -1e-30]
    t = np.asarray(TAN(special))
    assert t[0] == 0 and not np.signbit(t[0]) and t[1] == 0 and np.signbit(t[1])
    assert t[2] == np.float32(1e-30) and t[3] == np.float32(-1e-30)


@pytest.mark.parametrize("odd", [np.inf, np.nan, -1e30])
def test_an_element_beyond_the_limit_takes_xlas_tan_for_the_array(odd):
    x = np.linspace(-1.5, 1.5, 2048).astype(np.float32)
    x[5] = odd
    t = np.asarray(TAN(x))
    with np.errstate(invalid="ignore"):
        want = np.tan(x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(t), np.isnan(want))
    finite = np.isfinite(want) & (np.abs(want) < 1e3)
    np.testing.assert_allclose(t[finite], want[finite], rtol=2e-6)


def _large(x):
    return jnp.sin(x)


def _small(x):
    return jnp.sin(x)


def _wide(x):
    return jnp.sin(x)


def test_the_fast_form_is_what_runs_for_large_float32_arrays_only():
    text = astjax.make_source(astjax.jit(_large, backend="xla"), np.ones(4096, np.float32))
    assert "stablehlo.case" in text and "stablehlo.sine" in text  # (both branches)
    text = astjax.make_source(TAN, np.ones(4096, np.float32))
    assert "stablehlo.case" in text and "stablehlo.tan" in text
    for fn, x in ((_small, np.ones(16, np.float32)), (_wide, np.ones(4096, np.float64))):
        text = astjax.make_source(astjax.jit(fn, backend="xla"), x)
        assert "stablehlo.case" not in text and "stablehlo.sine" in text


def test_inside_loops_batches_and_derivatives():
    def rotate(theta, steps):
        def step(i, v):
            return jnp.cos(v) * 0.5 + jnp.sin(v * 1.5)
        return lax.fori_loop(0, steps, step, theta)

    theta = np.linspace(-3, 3, 4096).astype(np.float32)
    for fn, args in ((rotate, (theta, 5)),
                     (astjax.vmap(lambda v: jnp.sin(v) * jnp.cos(2 * v)), (theta.reshape(64, 64),)),
                     (astjax.grad(lambda v: jnp.sum(jnp.sin(v) ** 2)), (theta,))):
        static = (1,) if fn is rotate else ()
        got = astjax.jit(fn, backend="xla", static_argnums=static)(*args)
        want = astjax.jit(fn, backend="numpy", static_argnums=static)(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=2e-6)
