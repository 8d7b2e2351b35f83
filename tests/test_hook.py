"""The import hook: unmodified JAX programs run on astjax through `python -m astjax run`."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

PROGRAM = textwrap.dedent("""\
    import sys
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    jax.config.update("jax_enable_x64", True)


    @jax.jit
    def newton(a):
        x = a
        while jnp.abs(x * x - a) > 1e-9 * a:
            x = 0.5 * (x + a / x)
        return x


    def loss(w):
        return jnp.sum(jnp.sin(w) * w)


    g = jax.grad(loss)(np.array([0.5, 1.0]))
    print(jax.__name__, jnp.__name__, lax.__name__)
    print(round(float(newton(np.float64(2.0))), 9), np.round(g, 6).tolist(), sys.argv[1:])
    """)


def run(tmp_path, source, *args):
    script = tmp_path / "program.py"
    script.write_text(source)
    return subprocess.run([sys.executable, "-m", "astjax", "run", str(script), *args],
                          capture_output=True, text=True, timeout=120)


def test_a_jax_program_runs_on_astjax(tmp_path):
    proc = run(tmp_path, PROGRAM, "--flag", "x")
    assert proc.returncode == 0, proc.stderr
    names, values = proc.stdout.strip().splitlines()
    assert names == "astjax astjax.numpy astjax.lax"
    w = np.array([0.5, 1.0])
    expected_grad = np.round(np.sin(w) + w * np.cos(w), 6).tolist()  # d/dw sum(sin(w) * w)
    assert values == f"1.414213562 {expected_grad} ['--flag', 'x']"


def test_a_jax_module_without_counterpart_is_a_clear_import_error(tmp_path):
    proc = run(tmp_path, "import jax.experimental.sparse\n")
    assert proc.returncode != 0
    assert "jax.experimental" in proc.stderr and "no astjax counterpart" in proc.stderr


def test_missing_script_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "astjax", "run", str(tmp_path / "nope.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_install_hook_refuses_when_real_jax_is_loaded():
    pytest.importorskip("jax")
    with pytest.raises(AstjaxError, match="already imported"):
        astjax.install_hook()


def test_a_script_imports_its_sibling_modules_from_another_folder(tmp_path):
    """As `python dir/script.py`: the script's folder comes first on sys.path."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "helper.py").write_text("SCALE = 3.0\n")
    (folder / "main.py").write_text(textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        from helper import SCALE
        print(float(jax.grad(lambda x: SCALE * x * x)(2.0)))
        """))
    proc = subprocess.run([sys.executable, "-m", "astjax", "run", "project/main.py"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "12.0"


def test_spawned_workers_get_astjax_too(tmp_path):
    """multiprocessing's spawn starts a fresh interpreter: the hook follows it there."""
    program = textwrap.dedent("""\
        import multiprocessing as mp
        import jax

        def name(_):
            import jax
            return jax.__name__

        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(1) as pool:
                print(jax.__name__, pool.map(name, [0])[0])
        """)
    proc = run(tmp_path, program)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["astjax", "astjax"]


CALLBACK_AND_ODE = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import io_callback
    from jax.experimental.ode import odeint

    seen = []


    @jax.jit
    def f(y0):
        ys = odeint(lambda y, t, k: -k * y, y0, jnp.linspace(0.0, 1.0, 3), 2.0)
        s = jax.pure_callback(np.sum, jax.ShapeDtypeStruct((), ys.dtype), ys)
        io_callback(lambda v: seen.append(float(v)), None, s)
        return s


    total = float(f(jnp.ones(2)))
    print(jax.__name__, round(total, 6), seen == [total])
    """)


def test_jax_experimental_callbacks_and_odeint_come_from_astjax(tmp_path):
    proc = run(tmp_path, CALLBACK_AND_ODE)
    assert proc.returncode == 0, proc.stderr
    want = 2 * (1 + np.exp(-1.0) + np.exp(-2.0))  # the exact solution's values, summed
    name, total, same = proc.stdout.split()
    assert (name, same) == ("astjax", "True") and abs(float(total) - want) < 1e-6
