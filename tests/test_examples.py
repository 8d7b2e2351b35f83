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


def _accuracy(out):
    line = next(l for l in out.splitlines() if l.startswith("test accuracy"))
    return float(line.split()[2])


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_digits_cnn_reaches_95_percent_and_plots(tmp_path, backend):
    pytest.importorskip("sklearn", reason="the examples extra: pip install -e '.[examples]'")
    plot = tmp_path / "loss.png"
    out = run("digits_cnn.py", "--plot", str(plot), "--backend", backend)
    assert _accuracy(out) >= 0.95
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dp_sgd_learns_and_its_noise_costs_accuracy():
    pytest.importorskip("sklearn", reason="the examples extra: pip install -e '.[examples]'")
    private = _accuracy(run("dp_sgd.py", "--steps", "300"))
    public = _accuracy(run("dp_sgd.py", "--steps", "300", "--noise", "0", "--clip", "100"))
    assert private >= 0.8 and public >= 0.95 and public > private


def test_vae_learns_and_samples_digits(tmp_path):
    pytest.importorskip("sklearn", reason="the examples extra: pip install -e '.[examples]'")
    grid = tmp_path / "samples.png"
    out = run("vae.py", "--steps", "800", "--samples", str(grid))
    words = next(l for l in out.splitlines() if l.startswith("negative ELBO")).split()
    start, end = float(words[4]), float(words[8])
    assert end < 0.6 * start
    assert grid.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
