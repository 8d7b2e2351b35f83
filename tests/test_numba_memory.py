"""Freed memory is kept for the next call (glibc's malloc thresholds, set by `import astjax`):
a function whose temporaries total ~48 MB takes no page faults on repeat calls, on the
Numba backend and on NumPy (the first tier of `backend="auto"`). Oracle: the process's minor
page-fault count, read in a new process so that no earlier test has moved glibc's adaptive
thresholds."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not hasattr(os, "confstr") or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="the thresholds are glibc's")

# A while loop over every element of 1.5M doubles (halving all those above 1 while any is):
# its carries, double buffers and result are ~48 MB, allocated on every call.
PROGRAM = """
import resource
import sys
import numpy as np
import astjax
import astjax.numpy as jnp
from astjax import lax


def halve_large(x):
    return lax.while_loop(lambda x: jnp.any(x > 1.0),
                          lambda x: jnp.where(x > 1.0, x * 0.5, x), x)


a = np.linspace(0.01, 100, 1_500_000)
f = astjax.jit(halve_large, backend=sys.argv[1])
assert np.all(np.asarray(f(a)) <= 1.0)
f(a)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    f(a)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 5)
"""


def _faults_per_call(tmp_path, backend="numba", **env) -> int:
    program = tmp_path / "newton.py"
    program.write_text(PROGRAM)
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("MALLOC_") and name != "GLIBC_TUNABLES"} | env
    done = subprocess.run([sys.executable, str(program), backend], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def test_repeat_calls_reuse_the_memory_their_temporaries_freed(tmp_path):
    assert _faults_per_call(tmp_path) < 500  # (9,500 a call before: every page of 40 MB)


def test_the_numpy_tier_reuses_it_too(tmp_path):
    """Its temporaries are NumPy's arrays, one per operation and iteration."""
    assert _faults_per_call(tmp_path, backend="numpy") < 500


def test_a_programs_own_malloc_settings_are_kept(tmp_path):
    """MALLOC_TRIM_THRESHOLD_=0 gives every freed page back at once: the faults return."""
    assert _faults_per_call(tmp_path, MALLOC_TRIM_THRESHOLD_="0") > 5000


def test_other_malloc_settings_leave_the_thresholds_to_the_backend(tmp_path):
    """MALLOC_ARENA_MAX (common in containers) says nothing of the thresholds."""
    assert _faults_per_call(tmp_path, MALLOC_ARENA_MAX="2") < 500
