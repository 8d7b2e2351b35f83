"""pmap across processes (`astjax.distributed`, MPI ranks through mpi4py): every case run on
2 ranks, each holding half of the examples, gives what one process gives holding them all
(itself checked against explicit loops and finite differences in test_pmap.py), on the NumPy,
Numba and XLA backends; gradients through the cross-process collectives against central
differences; unequal shares are refused on every rank; the data-parallel example reaches one
process' parameters."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "distributed_cases", "on_ranks.py")
sys.path.insert(0, HERE)

from distributed_cases.inputs import CASES, W, Y4  # noqa: E402

pytest.importorskip("mpi4py", reason="MPI runs need mpi4py (pip install 'astjax[mpi]')")
MPIEXEC = shutil.which("mpiexec")
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec on PATH (pip install mpich)")


def _run(command, out_dir):
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=out_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.load(open(os.path.join(out_dir, f)))
            for f in sorted(os.listdir(out_dir)) if f.endswith(".json")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """One process holding every example (the named-vmap path)."""
    out = tmp_path_factory.mktemp("one")
    (results,) = _run([sys.executable, SCRIPT, "numpy", str(out)], str(out))
    assert results["ranks"] == 1
    return results


@pytest.fixture(scope="module", params=["numpy", "numba", "xla"])
def two_ranks(request, tmp_path_factory):
    if request.param == "xla":
        pytest.importorskip("jax", reason="the XLA backend compiles through jaxlib")
    out = tmp_path_factory.mktemp(f"ranks_{request.param}")
    results = _run([MPIEXEC, "-n", "2", sys.executable, SCRIPT, request.param, str(out),
                    "--mpi"], str(out))
    assert [r["ranks"] for r in results] == [2, 2]
    return results


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_ranks_give_what_one_process_gives(two_ranks, reference, name):
    want = reference[name]
    assert not isinstance(want, str), want
    for rank in two_ranks:
        assert not isinstance(rank[name], str), rank[name]
    for k, leaf in enumerate(want):
        got = np.concatenate([np.asarray(rank[name][k]) for rank in two_ranks])
        np.testing.assert_allclose(got, np.asarray(leaf), rtol=1e-10, atol=1e-12,
                                   err_msg=f"{name}, output {k}")


def test_gradient_across_ranks_matches_central_differences(two_ranks):
    """pmean's transpose gives each example the gradient of its own term (as in JAX)."""
    got = np.concatenate([np.asarray(rank["grad_mean_loss"][0]) for rank in two_ranks])
    eps = 1e-6
    for i, x in enumerate(Y4):
        term = lambda w: np.sum(np.tanh(x * w) ** 2)  # noqa: E731
        want = [(term(W + eps * e) - term(W - eps * e)) / (2 * eps) for e in np.eye(len(W))]
        np.testing.assert_allclose(got[i], want, rtol=1e-7, atol=1e-9)


def test_collectives_span_the_ranks(two_ranks):
    """The sums, gathers and positions are over all 4 examples, not each rank's 2."""
    x4 = CASES["collectives"][1]()[0]
    for r, rank in enumerate(two_ranks):
        total, *_, gathered, _, _, positions, count = rank["collectives"]
        np.testing.assert_allclose(total, np.broadcast_to(x4.sum(0), (2, 2)))
        np.testing.assert_allclose(gathered[0], x4)
        assert positions == [2 * r, 2 * r + 1] and count == [4, 4]


def test_unequal_shares_are_refused_on_every_rank(two_ranks):
    for rank in two_ranks:
        assert rank["unequal"].startswith("ShapeError") and "same number of examples" in \
            rank["unequal"], rank["unequal"]


def test_data_parallel_example_on_two_ranks_matches_one_process():
    example = os.path.join(os.path.dirname(HERE), "examples", "data_parallel.py")
    common = ["--devices", "1", "--backend", "numpy", "--steps", "30"]
    one = subprocess.run([sys.executable, example] + common, capture_output=True, text=True,
                         timeout=600)
    two = subprocess.run([MPIEXEC, "-n", "2", sys.executable, example, "--mpi"] + common,
                         capture_output=True, text=True, timeout=600)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    read = lambda out: np.array([float(v) for v in out.stdout.split("w2")[1].split()])  # noqa: E731
    np.testing.assert_allclose(read(two), read(one), rtol=1e-9)
    assert "2 processes x 1 devices" in two.stdout


def test_initialize_without_mpi4py_says_what_to_install():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import astjax\n"
            "try:\n    astjax.distributed.initialize()\n"
            "except astjax.AstjaxError as e:\n    print(type(e).__name__, e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert "DistributedError" in done.stdout and "astjax[mpi]" in done.stdout, done.stdout


def test_initialize_checks_what_it_is_given_and_runs_once():
    """Without mpiexec the job is this one process; JAX's arguments are checked against MPI."""
    code = ("import astjax\n"
            "from astjax.distributed import DistributedError\n"
            "try:\n    astjax.distributed.initialize(num_processes=2)\n"
            "except DistributedError as e:\n    print('refused:', e)\n"
            "astjax.distributed.initialize(coordinator_address='ignored:1234', process_id=0)\n"
            "print('joined', astjax.process_index(), astjax.process_count(),\n"
            "      astjax.distributed.is_initialized())\n"
            "try:\n    astjax.distributed.initialize()\n"
            "except DistributedError as e:\n    print('again:', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert "refused: num_processes=2 but MPI launched this process with 1" in done.stdout
    assert "joined 0 1 True" in done.stdout and "again:" in done.stdout, done.stdout + done.stderr
