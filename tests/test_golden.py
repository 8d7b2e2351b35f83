"""Golden text of generated source: grad, vmap, vmap of a while, grad of a while, and two Numba
modules, comments and the module header stripped (they name files and lines).

Readable generated code is a promise of the product; these tests make every change to it a
visible diff. After an intended change, regenerate with ASTJAX_UPDATE_GOLDEN=1 and read the diff.
"""
import os

import numpy as np
import pytest

import astjax
import golden_cases as cases

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")


def body(text: str) -> str:
    """The generated functions without comments, blank lines and the module header."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    kept = [line.split("  #")[0].rstrip() for line in lines[start:] if line.strip()]
    return "\n".join(kept) + "\n"


def check(name: str, text: str, folder: str = GOLDEN) -> None:
    path = os.path.join(folder, f"{name}.py.txt")
    got = body(text)
    if os.environ.get("ASTJAX_UPDATE_GOLDEN"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(got)
    with open(path, encoding="utf-8") as f:
        assert got == f.read(), f"generated source of {name} changed (see {path})"


def test_grad_of_a_converted_if():
    check("grad_softclip", astjax.make_source(astjax.grad(cases.softclip), np.ones(3), 2.0))


def test_grad_of_a_while():
    check("grad_while", astjax.make_source(astjax.grad(cases.loop), 0.5))


def test_grad_of_unpacked_tuple_arguments_keeps_the_users_names():
    """`(w1, b1), w2 = params` names the leaves of params: w1, b1, w2 (and w1_bar, ...)."""
    params = ((np.ones((3, 4)), np.zeros(4)), np.ones(4))
    text = astjax.make_source(astjax.grad(cases.mlp_loss), params, np.ones((5, 3)))
    check("grad_unpacked", text)
    assert "def grad_mlp_loss(w1, b1, w2, x):" in text and "return w1_bar, b1_bar, w2_bar" in text
    jaxpr = str(astjax.make_jaxpr(astjax.grad(cases.mlp_loss))(params, np.ones((5, 3))))
    assert "(w1, b1, w2, x)" in jaxpr and "_0" not in jaxpr.split(")")[0]


def test_vmap():
    f = astjax.vmap(cases.predict, in_axes=(None, None, 0))
    check("vmap_predict", astjax.make_source(f, np.ones((3, 2)), np.ones(2), np.ones((4, 3))))


def test_vmap_of_a_while():
    check("vmap_while", astjax.make_source(astjax.vmap(cases.newton_sqrt), np.ones(4)))


@pytest.mark.parametrize("name, fun, args", [
    ("numba_chain", cases.chain, (np.ones(8, np.float32),)),
    ("numba_fori", cases.damped, (np.ones(2), np.ones(2))),
])
def test_numba_module(name, fun, args):
    check(name, astjax.make_source(astjax.jit(fun, backend="numba"), *args))


def test_a_changed_line_is_noticed(tmp_path, monkeypatch):
    monkeypatch.delenv("ASTJAX_UPDATE_GOLDEN", raising=False)
    (tmp_path / "x.py.txt").write_text("def f(x):\n    return x\n")
    with pytest.raises(AssertionError, match="changed"):
        check("x", "# header\ndef f(x):\n    y = lax.neg(x)  # f.py:2\n    return y\n",
              str(tmp_path))
