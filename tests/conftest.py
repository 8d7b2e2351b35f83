"""Test session setup: a private cache directory for generated modules, the reference backend
unless a test names another, hypothesis profiles, and tests/ on sys.path so test modules can
`import corpus`."""
import os
import sys
import tempfile

from hypothesis import HealthCheck, settings

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TESTS)


def _cache_dir() -> str:
    if os.environ.get("ASTJAX_TEST_BUILD"):
        path = os.path.join(REPO, "build", "astjax_test_cache")
        os.makedirs(path, exist_ok=True)
        return path
    return tempfile.mkdtemp(prefix="astjax-test-cache-")


# At import, before any test compiles anything: generated modules never land in ~/.cache.
if "ASTJAX_CACHE_DIR" not in os.environ:
    os.environ.setdefault("ASTJAX_CACHE_DIR", _cache_dir())

# The suite checks what each backend computes: the NumPy reference unless a test names
# another (the Numba, XLA and CUDA suites do), so that a test's result never depends on which
# tier the default backend ("auto") had reached. test_auto_backend.py checks the tiers.
os.environ.setdefault("ASTJAX_BACKEND", "numpy")

if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=10,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=25,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
