"""The bundled example programs run end to end (small sizes)."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def run(name, *args):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_data_parallel_training_does_not_depend_on_the_device_count():
    pytest.importorskip("jax", reason="the XLA backend compiles through jaxlib")
    results = {}
    for devices, backend in [(1, "xla"), (2, "xla"), (4, "xla"), (2, "numpy")]:
        out = run("data_parallel.py", "--devices", str(devices), "--backend", backend,
                  "--steps", "30")
        lines = out.strip().splitlines()
        assert lines[0].startswith(f"devices {devices}, backend {backend}: loss ")
        results[(devices, backend)] = [float(v) for v in lines[0].split()[-1:] +
                                       lines[1].split()[1:]]
    first = results[(1, "xla")]
    for key, values in results.items():
        assert values == pytest.approx(first, rel=1e-9, abs=1e-12), key
