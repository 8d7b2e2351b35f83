"""A damaged cache heals: every kind of cache file truncated, garbled, emptied or replaced by
a folder, and a cache root that cannot be written, still give the right answer (each process
in a subprocess), with one warning, and the next process runs clean."""
import glob
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

PROGRAM = os.path.join(os.path.dirname(__file__), "cache_program.py")
EXPECTED = float(np.sum(np.tanh(np.linspace(-1, 1, 5)) * 2 + 1))


def run(env):
    done = subprocess.run([sys.executable, PROGRAM], capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    numba_sum, numpy_sum = map(float, done.stdout.split())
    assert numba_sum == pytest.approx(EXPECTED) and numpy_sum == pytest.approx(EXPECTED)
    return done.stderr.count("astjax:")


def truncate(path):
    data = open(path, "rb").read()
    open(path, "wb").write(data[:len(data) // 3])


def garble(path):
    open(path, "wb").write(b"\x80\x04garbage" * 7)


def empty(path):
    open(path, "wb").close()


def folder(path):
    os.remove(path)
    os.makedirs(path)


DAMAGE = {"truncate": truncate, "garble": garble, "empty": empty, "folder": folder}
FILES = {"numba index": "numba-cache/*/*.nbi", "numba data": "numba-cache/*/*.nbc",
         "generated numba module": "astjax-cache/numba/*.py",
         "generated numpy module": "astjax-cache/numpy/*.py"}


def _env(root):
    return dict(os.environ, ASTJAX_CACHE_DIR=str(root / "astjax-cache"),
                NUMBA_CACHE_DIR=str(root / "numba-cache"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache built once; each test damages its own copy."""
    root = tmp_path_factory.mktemp("built")
    assert run(_env(root)) == 0
    return root


@pytest.fixture
def env(tmp_path, built):
    for name in ("astjax-cache", "numba-cache"):
        shutil.copytree(built / name, tmp_path / name)
    return _env(tmp_path)


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("kind", sorted(FILES))
def test_a_damaged_cache_file_heals(tmp_path, env, kind, damage):
    (path,) = glob.glob(str(tmp_path / FILES[kind]))
    DAMAGE[damage](path)
    assert run(env) <= 1   # at most one warning, and the right answer
    assert run(env) == 0   # healed: the next process is clean


def test_a_cache_root_that_cannot_be_written_falls_back(tmp_path, env):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env["ASTJAX_CACHE_DIR"] = str(blocker)
    assert run(env) == 1
    assert blocker.read_text() == "not a folder"  # nothing of the user's is touched


def test_generated_modules_are_readable_by_others(built):
    for path in glob.glob(str(built / "astjax-cache" / "*" / "*.py")):
        assert os.stat(path).st_mode & 0o044 == 0o044


def _can_mount_read_only() -> bool:
    """Read-only bind mounts in a private mount namespace (root, where the machine allows)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = 'd=$(mktemp -d) && mount --bind "$d" "$d" && mount -o remount,bind,ro "$d"'
    done = subprocess.run(["unshare", "-m", "sh", "-c", probe], capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(not _can_mount_read_only(), reason="needs read-only bind mounts (root)")
@pytest.mark.parametrize("read_only", ["numba", "root"])
def test_read_only_cache_and_home_still_compile(tmp_path, env, read_only):
    """A read-only home and a read-only cache (the whole root, or only its Numba folder, so
    that Numba finds neither __pycache__ nor a user cache: "no locator available")."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("numba-cache", "astjax-cache/numba/__pycache__"):
        shutil.rmtree(tmp_path / name, ignore_errors=True)
    frozen = tmp_path / "astjax-cache" / ("numba" if read_only == "numba" else "")
    mounts = " && ".join(f"mount --bind {p} {p} && mount -o remount,bind,ro {p}"
                         for p in (home, frozen))
    env = {k: v for k, v in env.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    done = subprocess.run(["unshare", "-m", "sh", "-c", f"{mounts} && exec {sys.executable} "
                           f"{PROGRAM}"], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert [float(v) for v in done.stdout.split()] == pytest.approx([EXPECTED, EXPECTED])
    assert done.stderr.count("astjax:") == 1  # one warning says where the code went
    assert not os.listdir(home)
