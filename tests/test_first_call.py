"""Work kept out of a function's first call: jaxlib is imported beside `import astjax` (no
thread outlives it), LAPACK is bound only for modules that call it, modules a program never
names (and SciPy's special functions, until one runs) are not imported, and the version
lookups and source passes a first call makes are cheap. Each check runs in a new process."""
import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest

from astjax.backends.auto import record
from astjax.rewriters.source.pipeline import needs_rewriting

TESTS = os.path.dirname(os.path.abspath(__file__))

AFTER_IMPORT = textwrap.dedent("""
    import sys, threading
    import astjax
    print(threading.active_count(), "jaxlib.xla_client" in sys.modules)
""")


@pytest.mark.parametrize("backend, loaded", [("auto", True), ("xla", True), ("numpy", False)])
def test_import_loads_jaxlib_for_xla_tiers_and_leaves_no_thread(backend, loaded):
    env = dict(os.environ, ASTJAX_BACKEND=backend)
    done = subprocess.run([sys.executable, "-c", AFTER_IMPORT], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", str(loaded)]


LAPACK = textwrap.dedent("""
    import sys
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    import first_call_program as p
    x = np.linspace(-1.0, 1.0, 5)
    print(np.allclose(astjax.jit(p.plain, backend="xla")(x), np.tanh(x) * 2 + 1))
    print("scipy.linalg" in sys.modules)
    a = np.arange(9.0).reshape(3, 3) / 10
    got = astjax.jit(p.cholesky_of_gram, backend="xla")(a)
    print(np.allclose(got, np.linalg.cholesky(a @ a.T + 3 * np.eye(3))))
""")


def test_lapack_is_bound_only_for_modules_that_call_it(tmp_path):
    """A module without linear algebra never imports SciPy's LAPACK (0.1-0.2 s); one with it
    works compiled, and again loaded from the disk cache in a new process."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path), ASTJAX_BACKEND="xla")
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", LAPACK.format(tests=TESTS)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["True", "False", "True"]


JAX_NAMES = textwrap.dedent("""
    import sys
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    import first_call_program as p
    x = np.linspace(-1.0, 1.0, 5)
    print(np.allclose(astjax.jit(p.through_jax_names)(x), np.exp(x) + np.tanh(x)))
    print("astjax.random" in sys.modules, "astjax.nn" in sys.modules)
    print(astjax.jit(p.noise)(np.float32(1.0)).shape)
""")


def test_modules_a_program_never_names_are_not_imported(tmp_path):
    """Resolving `jax.lax` and `jax.numpy` does not import the stand-ins of every JAX module
    (astjax.random: 60-80 ms of a first call where no bytecode is cached); `jax.random`
    still resolves when a function uses it."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", JAX_NAMES.format(tests=TESTS)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "False", "(3,)"]


SPECIAL = textwrap.dedent("""
    import sys
    import numpy as np
    import astjax
    print("scipy.special" in sys.modules)
    print(float(astjax.scipy.special.erf(np.float64(0.5))))
""")


def test_scipy_special_is_imported_when_a_special_function_first_runs():
    """`import astjax` leaves SciPy's special functions out (0.24 s of its 0.5 s)."""
    done = subprocess.run([sys.executable, "-c", SPECIAL], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    absent, value = done.stdout.split()
    assert absent == "False" and abs(float(value) - 0.5204998778130465) < 1e-12


NARROW_FLOATS = textwrap.dedent("""
    import sys
    import numpy as np
    import astjax
    import astjax.numpy as jnp
    import astjax.backends.numba
    print("ml_dtypes" in sys.modules)
    print(np.dtype(jnp.bfloat16), jnp.finfo(jnp.bfloat16).eps, jnp.finfo(np.float32).bits)
""")


def test_a_process_without_xla_leaves_the_narrow_floats_out_until_asked_for():
    """ml_dtypes' import is half a second (most of `import astjax`): a process on Numba (a
    kernel's compile) never imports it; jnp.bfloat16 and its finfo still work, imported
    then."""
    env = dict(os.environ, ASTJAX_BACKEND="numba")
    done = subprocess.run([sys.executable, "-c", NARROW_FLOATS], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "bfloat16", "0.0078125", "32"]


def test_numba_version_is_read_without_parsing_package_metadata():
    assert record._numba_version() == importlib.metadata.version("numba")


@pytest.mark.parametrize("source, rewrite", [
    ("def f(x):\n    y = x + 1\n    return y\n", False),
    ("def f(x):\n    def g(y):\n        return y\n    return g(x)\n", False),
    ("def f(x):\n    for i in range(3):\n        x = x + i\n    return x\n", False),
    ("def f(x):\n    if x > 0:\n        return x\n    return -x\n", True),
    ("def f(x):\n    def g(y):\n        if y:\n            return 1\n        return 2\n"
     "    return g(x)\n", True),
    ("def f(x):\n    while x < 3:\n        if x > 1:\n            break\n        x = x + 1\n"
     "    return x\n", True),
    ("def f(x):\n    for i in range(3):\n        continue\n    return x\n", True),
    ("def f(x):\n    for i in range(3):\n        return i\n", True),
    ("    def method(self, x):\n        if x:\n            return 1\n        return 0\n", True),
])
def test_source_passes_run_only_where_they_change_something(source, rewrite):
    assert needs_rewriting(source) is rewrite


WITHOUT_JAXLIB = textwrap.dedent("""
    import sys, warnings
    sys.modules["jaxlib"] = sys.modules["jax"] = None  # (as if neither were installed)
    import numpy as np
    import astjax
    sys.path.insert(0, {tests!r})
    import first_call_program as p
    x = np.linspace(-1.0, 1.0, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print(np.allclose(astjax.jit(p.plain)(x), np.tanh(x) * 2 + 1))
    print(any("jaxlib" in str(w.message) for w in caught))
""")


def test_the_default_backend_runs_without_jaxlib(tmp_path):
    """Without jaxlib the default backend warns once that XLA is unavailable and runs on
    the NumPy tier (its tier record named jaxlib's version by importing it)."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    env.pop("ASTJAX_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", WITHOUT_JAXLIB.format(tests=TESTS)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


FREEZE = """
import gc, sys
sys.path.insert(0, {tests!r})
import numpy as np
import astjax
from first_call_program import plain
before = gc.get_freeze_count()
astjax.jit(plain, backend="numpy")(np.ones(3))
print("FROZEN", before, gc.get_freeze_count(), flush=True)
"""


def test_what_a_process_built_before_its_first_compile_is_out_of_the_collectors_reach(tmp_path):
    """A full collection over everything imported took 35-110 ms, landing on a warm first
    call that should take 20-50 ms; the first compile moves it to the permanent generation."""
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FREEZE.format(tests=TESTS)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    _, before, after = next(ln for ln in done.stdout.splitlines() if ln.startswith("FROZEN")).split()
    assert int(before) == 0 and int(after) > 20_000, done.stdout
