"""`astjax transform` compiles ahead of time the transformations whose functions have a
signature (jaxtyping annotations or --signature): the written module holds the generated core
form, runs where libcst and astjax's front end cannot be imported, and agrees with jit."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

import astjax
from test_numba_backend import _varied
from corpus import CASES

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(REPO, "tests", "corpus")

# Run a generated module where importing the compiler (libcst, the front end) or jaxtyping
# fails: what it needs is NumPy and astjax's runtime.
BLOCKED_RUNNER = textwrap.dedent("""
    import importlib, importlib.abc, os, pickle, sys
    class Blocked(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("libcst", "jaxtyping") or name.startswith("astjax.frontend"):
                raise ImportError("blocked: " + name)
    sys.meta_path.insert(0, Blocked())
    module, calls = sys.argv[1], sys.argv[2]
    sys.path.insert(0, os.path.dirname(module))  # imported by its name, as a user would
    namespace = vars(importlib.import_module(os.path.basename(module)[:-3]))
    with open(calls, "rb") as f:
        todo = pickle.load(f)
    results = {name: namespace[name](*args) for name, args in todo.items()}
    assert "libcst" not in sys.modules and "astjax.frontend" not in sys.modules
    with open(calls, "wb") as f:
        pickle.dump(results, f)
""")


def transform(tmp_path, source: str, *signatures, backend="numpy") -> str:
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(source))
    options = [a for s in signatures for a in ("--signature", s)] + ["--backend", backend]
    proc = subprocess.run([sys.executable, "-m", "astjax", "transform", str(path), "-o",
                           str(tmp_path / "out"), *options], capture_output=True, text=True,
                          cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / "out" / "program.py").read_text()


def run_blocked(tmp_path, calls: dict) -> dict:
    import pickle
    calls_file = tmp_path / "calls.pkl"
    calls_file.write_bytes(pickle.dumps(calls))
    runner = tmp_path / "runner.py"
    runner.write_text(BLOCKED_RUNNER)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.join(REPO, "tests"), REPO, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, str(runner), str(tmp_path / "out" / "program.py"),
                           str(calls_file)], capture_output=True, text=True, cwd=str(tmp_path),
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return pickle.loads(calls_file.read_bytes())


ANNOTATED = """
    from __future__ import annotations

    import jax
    import jax.numpy as jnp
    try:
        from jaxtyping import Array, Float64
    except ImportError:
        pass


    def logistic(w, b, x):
        return 1.0 / (1.0 + jnp.exp(-(x @ w + b)))


    def cross_entropy(w: Float64[Array, "d"], b: Float64[Array, ""], x: Float64[Array, "n d"],
                      labels: Float64[Array, "n"]):
        p = logistic(w, b, x)
        return -jnp.mean(labels * jnp.log(p) + (1.0 - labels) * jnp.log(1.0 - p))


    loss_grad = jax.jit(jax.grad(cross_entropy))
    both = jax.value_and_grad(cross_entropy, argnums=(0, 1))


    @jax.jit
    def capped(x: Float64[Array, "n"], limit: float):
        y = jnp.tanh(x) * limit
        if jnp.sum(y) > limit:
            y = y / jnp.sum(y) * limit
        return y
"""


def test_annotated_functions_are_generated_and_run_without_the_compiler(tmp_path):
    code = transform(tmp_path, ANNOTATED)
    assert "def grad_cross_entropy(w, b, x, labels):" in code
    assert "n = x.shape[0]" in code and "# grad of program.py:" in code
    assert code.count("[generated below]") == 3
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal(3), np.float64(0.25)
    calls = {}
    for n in (4, 9):
        x, labels = rng.standard_normal((n, 3)), (rng.random(n) > 0.5).astype(float)
        calls = {"loss_grad": (w, b, x, labels), "both": (w, b, x, labels),
                 "capped": (rng.standard_normal(n), 2.0)}
        got = run_blocked(tmp_path, calls)
        reference = _reference_module(tmp_path)
        np.testing.assert_allclose(got["loss_grad"], astjax.jit(astjax.grad(
            reference.cross_entropy))(w, b, x, labels), rtol=1e-12)
        value, (gw, gb) = got["both"]
        ref_value, (ref_w, ref_b) = astjax.value_and_grad(reference.cross_entropy,
                                                          argnums=(0, 1))(w, b, x, labels)
        np.testing.assert_allclose([value, gb], [ref_value, ref_b], rtol=1e-12)
        np.testing.assert_allclose(gw, ref_w, rtol=1e-12)
        np.testing.assert_allclose(got["capped"], reference.capped(*calls["capped"]))


def _reference_module(tmp_path):
    """The input program itself, its JAX imports spelled as astjax (JAX may be imported already
    by other tests, so the import hook cannot redirect them)."""
    import importlib.util
    text = (tmp_path / "program.py").read_text()
    text = text.replace("import jax.numpy as jnp", "import astjax.numpy as jnp")
    text = text.replace("import jax\n", "import astjax as jax\n")
    path = tmp_path / "reference.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"reference_{os.getpid()}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_arguments_outside_the_signature_are_refused_clearly(tmp_path):
    transform(tmp_path, ANNOTATED)
    bad = {"loss_grad": (np.ones(3), np.float64(0.0), np.ones((4, 2)), np.ones(4))}
    with pytest.raises(AssertionError, match=r"x.shape\[1\] is 2, but d is 3"):
        run_blocked(tmp_path, bad)
    with pytest.raises(AssertionError, match=r"float32\[3\]; this code was generated for w: "
                                             r"float64\[d\]"):
        run_blocked(tmp_path, {"loss_grad": (np.ones(3, np.float32), np.float64(0.0),
                                             np.ones((4, 3)), np.ones(4))})


def test_a_recorded_fact_becomes_a_check(tmp_path):
    code = transform(tmp_path, """
        import jax
        import jax.numpy as jnp

        def head(x):
            if x.shape[0] > 3:
                return x[:3] * 2.0
            return x * 2.0

        f = jax.jit(head)
    """, "head(f64[n])")
    assert "# for sizes with n > 3" in code
    np.testing.assert_array_equal(run_blocked(tmp_path, {"f": (np.ones(6),)})["f"], 2 * np.ones(3))
    with pytest.raises(AssertionError, match="break `n > 3`"):
        run_blocked(tmp_path, {"f": (np.ones(3),)})


def test_a_function_needing_a_concrete_size_compiles_at_first_call(tmp_path):
    code = transform(tmp_path, """
        import jax
        import jax.numpy as jnp

        def weighted(x):
            total = 0.0
            for i in range(x.shape[0]):
                total = total + i * x[i]
            return total

        f = jax.jit(weighted)
    """, "weighted(f64[n])")
    assert "[compiled at first call]" in code and "def weighted_core" not in code
    assert "f = jax.jit(weighted)" in code


# ---------------------------------------------------------------- the corpus, ahead of time
def _eligible(case) -> bool:
    return not case.static_argnums and "pytree" not in case.tags and "numpy" not in case.tags


def test_corpus_modules_generated_ahead_of_time_agree_with_jit(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("corpus_ahead")
    cases = [c for c in CASES if _eligible(c)]
    by_module = {}
    for case in cases:
        by_module.setdefault(case.fun.__module__.rsplit(".", 1)[-1], []).append(case)
    args = {c.name: _draw(c) for c in cases}
    generated, total = 0, 0
    for module, group in sorted(by_module.items()):
        group = [c for c in group if _signature(c, args[c.name]) is not None]
        signatures = [_signature(c, args[c.name]) for c in group]
        folder = tmp_path / module
        folder.mkdir()
        code = transform(folder, _corpus_program(module, group), *signatures)
        made = [c for c in group if f"def {c.name}__aot(" in code]
        generated, total = generated + len(made), total + len(group)
        if not made:
            continue
        # again with only those, so that the module needs no compiler at all
        transform(folder, _corpus_program(module, made), *signatures)
        got = run_blocked(folder, {f"{c.name}__aot": args[c.name] for c in made})
        for c in made:
            want = astjax.jit(c.fun)(*args[c.name])
            _assert_tree_close(got[f"{c.name}__aot"], want, c.name)
    assert generated >= total // 2, f"only {generated} of {total} corpus cases generated"


def _draw(case):
    """hypothesis' simplest float64 arguments whose array sizes are all 2 or more (the sizes a
    signature names symbolically), else its simplest arguments with varied values."""
    quiet = settings(database=None, max_examples=300, derandomize=True,
                     suppress_health_check=list(HealthCheck))
    strategy = case.args(np.float64)
    try:
        return find(strategy, lambda a: _sizes_vary(a) and _varied(a), settings=quiet)
    except NoSuchExample:
        return find(strategy, _varied, settings=quiet)


def _sizes_vary(args) -> bool:
    """Every array size 2 or more: the sizes the signature names (symbolic in the code)."""
    return all(min(np.shape(a), default=2) >= 2 for a in args)


def _corpus_program(module: str, cases) -> str:
    with open(os.path.join(CORPUS, f"{module}.py"), encoding="utf-8") as f:
        text = f.read()
    text = text.split("\nCASES = ")[0].replace("from .registry import", "from corpus.registry import")
    lines = text.splitlines()
    lines += ["", "", "import astjax as _jax", ""]
    lines += [f"{c.name}__aot = _jax.jit({c.fun.__name__})" for c in cases]
    return "\n".join(lines) + "\n"


CODES = {"float64": "f64", "float32": "f32", "int64": "i64", "int32": "i32", "bool": "bool"}


def _signature(case, args):
    """Named sizes by value (`s3`), so equal sizes stay equal; sizes 0 and 1 as numbers.
    None when an argument is not an array or a Python scalar."""
    parts = []
    for a in args:
        if isinstance(a, (bool, int, float)):
            parts.append(type(a).__name__)
            continue
        if not isinstance(a, np.ndarray) or a.dtype.name not in CODES:
            return None
        dims = ", ".join(f"s{d}" if d >= 2 else str(d) for d in a.shape)
        parts.append(f"{CODES[a.dtype.name]}[{dims}]")
    return f"{case.fun.__name__}({', '.join(parts)})"


def _assert_tree_close(got, want, name):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            _assert_tree_close(g, w, name)
    elif isinstance(want, dict):
        for k in want:
            _assert_tree_close(got[k], want[k], name)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12,
                                   err_msg=name)


def test_generated_code_never_shadows_a_module_name():
    from astjax.transform_file import generate
    text = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp


        def logistic(x):
            return 1.0 / (1.0 + jnp.exp(-x))


        def logistic_core(x):
            return x


        predict = jax.jit(logistic)
        again = jax.jit(logistic)
        """)
    code = generate(text, "m.py", {"logistic": "logistic(f64[n])"}).code
    defs = [line for line in code.splitlines() if line.startswith("def ")]
    names = [d.split("(")[0][4:] for d in defs]
    assert len(names) == len(set(names)), names
    assert "def logistic(x):\n    return 1.0 / (1.0 + jnp.exp(-x))" in code


def test_numba_kernels_written_ahead_of_time_run_without_the_compiler(tmp_path):
    """--backend numba: each function with a signature is an @numba.njit(cache=True) kernel
    reading its sizes from its arguments; the module runs with the compiler blocked, for any
    size, and agrees with jit."""
    code = transform(tmp_path, ANNOTATED, backend="numba")
    assert code.count("@numba.njit(cache=True") == 3 and "# for sizes with" not in code
    reference = _reference_module(tmp_path)
    rng = np.random.default_rng(1)
    w, b = rng.standard_normal(3), np.float64(0.25)
    for n in (3, 40):
        x, labels = rng.standard_normal((n, 3)), (rng.random(n) > 0.5).astype(float)
        calls = {"loss_grad": (w, b, x, labels), "capped": (rng.standard_normal(n), 2.0)}
        got = run_blocked(tmp_path, calls)
        np.testing.assert_allclose(got["loss_grad"], astjax.jit(astjax.grad(
            reference.cross_entropy))(w, b, x, labels), rtol=1e-10)
        np.testing.assert_allclose(got["capped"], reference.capped(*calls["capped"]),
                                   rtol=1e-12)


DERIVATIVES = """
    from __future__ import annotations
    import jax
    import jax.numpy as jnp


    def energy(x: Float64[Array, "n"]):
        return jnp.sum(jnp.sin(x) * x ** 2)


    def row_norm(x: Float64[Array, "d"], scale: float):
        return jnp.sqrt(jnp.sum(x * x)) * scale


    hess = jax.jit(jax.hessian(energy))
    jf = jax.jacfwd(energy)
    jr = jax.jacrev(energy)
    batched = jax.vmap(row_norm, in_axes=(0, None))
    vg = jax.value_and_grad(energy)
"""


def test_jacobians_hessians_and_vmap_are_generated_for_their_own_arguments(tmp_path):
    """vmap's signature gains the batch axis it maps (the annotation describes row_norm)."""
    code = transform(tmp_path, DERIVATIVES)
    assert code.count("[generated below]") == 5, code[:1200]
    assert "row_norm(x: float64[batch, d], scale: float)" in code
    x, rows = np.array([0.3, 1.2, -0.7, 2.0]), np.arange(15.0).reshape(5, 3)
    got = run_blocked(tmp_path, {"hess": (x,), "jf": (x,), "jr": (x,), "batched": (rows, 2.0),
                                 "vg": (x,)})
    exact_grad = (2 * x * np.sin(x) + x ** 2 * np.cos(x))
    exact_hess = np.diag((2 - x ** 2) * np.sin(x) + 4 * x * np.cos(x))
    np.testing.assert_allclose(got["hess"], exact_hess, rtol=1e-12)
    np.testing.assert_allclose(got["jf"], exact_grad, rtol=1e-12)
    np.testing.assert_allclose(got["jr"], exact_grad, rtol=1e-12)
    np.testing.assert_allclose(got["batched"], 2.0 * np.sqrt(np.sum(rows ** 2, axis=1)), rtol=1e-12)
    np.testing.assert_allclose(got["vg"][0], np.sum(np.sin(x) * x ** 2), rtol=1e-12)
    np.testing.assert_allclose(got["vg"][1], exact_grad, rtol=1e-12)
