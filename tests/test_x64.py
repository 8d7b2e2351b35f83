"""`jax_enable_x64` off: astjax computes in the 32-bit dtypes JAX computes in.

The oracle is JAX itself, run in a subprocess with JAX_ENABLE_X64=0 on the programs of
x64_cases.py (creation functions, promotion, 64-bit inputs, grad, vmap, random, loops)."""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax

CASES = os.path.join(os.path.dirname(__file__), "x64_cases.py")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_cases(tag, backend="numpy"):
    env = dict(os.environ, JAX_ENABLE_X64="0", JAX_PLATFORMS="cpu", ASTJAX_BACKEND=backend,
               PYTHONPATH=os.pathsep.join([REPO, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, CASES, tag], env=env, capture_output=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return pickle.loads(done.stdout)


@pytest.fixture(scope="module")
def jax_results():
    pytest.importorskip("jax")
    return _run_cases("jax")


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_x64_off_dtypes_and_values_match_jax(jax_results, backend):
    ours = _run_cases("astjax", backend)
    wrong = [(k, want[0], ours[k][0]) for k, want in jax_results.items()
             if want[0] != ours[k][0] or not np.allclose(want[1], ours[k][1], rtol=1e-6)]
    assert not wrong, wrong
    assert len(jax_results) > 60


@pytest.fixture
def x64_off():
    with astjax.enable_x64(False):
        yield


def test_jit_narrows_64_bit_arguments_and_constants(x64_off):
    f = astjax.jit(lambda x, n: (x * n + jnp.ones(3), jnp.arange(3) + n, x.sum() / n))
    a, b, c = f(np.ones(3), 2)
    assert (a.dtype, b.dtype, c.dtype) == (np.float32, np.int32, np.float32)
    np.testing.assert_array_equal(a, [3.0, 3.0, 3.0])


def test_weak_python_scalar_argument_stays_32_bit(x64_off):
    assert astjax.jit(lambda s: s * 2.0)(1.5).dtype == np.float32
    assert astjax.jit(lambda s: s + 1)(3).dtype == np.int32


def test_the_flag_selects_separate_compilations():
    f = astjax.jit(lambda x: x + jnp.linspace(0.0, 1.0, 3))
    x = np.zeros(3, np.float32)
    with astjax.enable_x64(False):
        assert f(x).dtype == np.float32
    with astjax.enable_x64(True):
        assert f(x).dtype == np.float64  # linspace is float64, as in NumPy
    with astjax.enable_x64(False):
        assert f(x).dtype == np.float32


def test_eager_fori_loop_hands_an_int32_array_index(x64_off):
    seen = []
    def body(i, c):
        seen.append((type(i), np.asarray(i).dtype))
        return c + i * 0.5
    out = lax.fori_loop(0, 3, body, jnp.zeros(2))
    assert out.dtype == np.float32 and np.allclose(out, 1.5)
    assert all(issubclass(t, np.ndarray) and d == np.int32 for t, d in seen)


def test_array_math_narrows_eagerly(x64_off):
    i = jnp.arange(3)
    assert (i * 0.5).dtype == np.float32 and (i / 2).dtype == np.float32
    assert (np.ones(3) + i).dtype == np.float32 and i.astype(np.float64).dtype == np.float32
    out = jnp.zeros(3)
    np.add(i, 1.0, out=out)  # NumPy's out= still writes in place
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])


def test_x64_on_keeps_numpy_dtypes():
    with astjax.enable_x64(True):
        assert jnp.ones(2).dtype == np.float64 and (jnp.arange(3) * 0.5).dtype == np.float64


@pytest.mark.parametrize("value, expected", [("0", "False"), ("false", "False"),
                                             ("1", "True"), ("", "True")])
def test_JAX_ENABLE_X64_environment_variable(value, expected):
    env = dict(os.environ, JAX_ENABLE_X64=value)
    code = "import astjax, astjax.numpy as jnp; print(astjax.config.x64_enabled(), jnp.ones(1).dtype)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [expected, "float64" if expected == "True" else "float32"]
