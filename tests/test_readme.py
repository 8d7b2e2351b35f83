"""The README's porting example runs as written (as a file, as astjax compiles from source),
and gives what the same program gives under JAX."""
import os
import re
import subprocess
import sys

import pytest

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def porting_example() -> str:
    text = open(README).read()
    after = text.split("<!-- porting-example -->", 1)[1]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


def run(source, path):
    path.write_text(source)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


def test_porting_example_runs_and_matches_jax(tmp_path):
    source = porting_example()
    ours = run(source, tmp_path / "ported.py")
    pytest.importorskip("jax")
    as_jax = "import jax\njax.config.update('jax_enable_x64', True)\n" + source.replace(
        "import astjax as jax\n", "").replace("import astjax.numpy as jnp", "import jax.numpy as jnp") \
        .replace("from astjax import lax", "from jax import lax")
    theirs = run(as_jax, tmp_path / "original.py")
    assert ours == pytest.approx(theirs, rel=1e-3)
