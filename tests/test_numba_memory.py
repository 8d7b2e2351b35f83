"""The Numba backend keeps freed memory for the next call (glibc's malloc thresholds): a
kernel whose temporaries total 40 MB takes no page faults on repeat calls. Oracle: the
process's minor page-fault count, read in a new process so that no earlier test has moved
glibc's adaptive thresholds."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not hasattr(os, "confstr") or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="the thresholds are glibc's")

# A vmapped while loop over a million lanes: carries, double buffers and flags are ~40 MB.
PROGRAM = """
import resource, sys
import numpy as np
import astjax
sys.path.insert(0, {tests!r})
from numba_cases import newton_sqrt

a = np.linspace(0.01, 100, 1_000_000, dtype=np.float32)
f = astjax.jit(astjax.vmap(newton_sqrt), backend="numba")
assert np.allclose(f(a), np.sqrt(a), rtol=1e-5)
f(a)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    f(a)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 5)
"""


def _faults_per_call(tmp_path, **env) -> int:
    program = tmp_path / "newton.py"
    program.write_text(PROGRAM.format(tests=os.path.dirname(os.path.abspath(__file__))))
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("MALLOC_") and name != "GLIBC_TUNABLES"} | env
    done = subprocess.run([sys.executable, str(program)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def test_repeat_calls_reuse_the_memory_their_temporaries_freed(tmp_path):
    assert _faults_per_call(tmp_path) < 500  # (9,500 a call before: every page of 40 MB)


def test_a_programs_own_malloc_settings_are_kept(tmp_path):
    """MALLOC_TRIM_THRESHOLD_=0 gives every freed page back at once: the faults return."""
    assert _faults_per_call(tmp_path, MALLOC_TRIM_THRESHOLD_="0") > 5000


def test_other_malloc_settings_leave_the_thresholds_to_the_backend(tmp_path):
    """MALLOC_ARENA_MAX (common in containers) says nothing of the thresholds."""
    assert _faults_per_call(tmp_path, MALLOC_ARENA_MAX="2") < 500
