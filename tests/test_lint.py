"""The code passes the linter with the repository's configuration (ruff.toml)."""
import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: `pip install -e .[test]` installs it")
    proc = subprocess.run([ruff, "check", "--output-format", "concise", "."], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
