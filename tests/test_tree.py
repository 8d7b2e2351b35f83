"""`jax.tree` and the rest of `jax.tree_util` as JAX defines them (JAX is the oracle where it
is installed): short names, key paths, registered classes and dataclasses, Partial, and their
use inside jit and grad."""
import dataclasses

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util

jax = pytest.importorskip("jax")

TREE = {"b": [np.float64(1.5), (np.arange(3.0), None)], "a": np.ones((2, 2))}


def _same(got, want):
    gl, wl = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(gl) == len(wl)
    for g, w in zip(gl, wl):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_short_names_are_tree_util_functions():
    t = astjax.tree
    _same(t.map(lambda x, y: x + y, TREE, TREE), jax.tree.map(lambda x, y: x + y, TREE, TREE))
    _same(t.leaves(TREE), jax.tree.leaves(TREE))
    leaves, treedef = t.flatten(TREE)
    _same(t.unflatten(treedef, [x * 2 for x in leaves]), jax.tree.map(lambda x: x * 2, TREE))
    assert treedef.unflatten(leaves)["b"][0] == 1.5 and t.structure(TREE) == treedef
    want = jax.tree.structure(TREE)
    assert (treedef.num_leaves, treedef.num_nodes) == (want.num_leaves, want.num_nodes)
    assert t.reduce(lambda a, b: a + np.sum(b), TREE, 0.0) == pytest.approx(8.5)
    assert t.reduce_associative(lambda a, b: a + np.sum(b), [1.0, 2.0, 3.0, 4.0, 5.0]) == 15.0
    assert t.all([True, (1, [2])]) and not t.all({"x": 0})


def test_key_paths_as_jax_names_them():
    got = [(tree_util.keystr(p), np.asarray(x).tolist())
           for p, x in astjax.tree.leaves_with_path(TREE)]
    want = [(jax.tree_util.keystr(p), np.asarray(x).tolist())
            for p, x in jax.tree.leaves_with_path(TREE)]
    assert got == want
    doubled = astjax.tree.map_with_path(lambda p, x: x * len(p), TREE)
    _same(doubled, jax.tree.map_with_path(lambda p, x: x * len(p), TREE))
    assert tree_util.keystr(astjax.tree.leaves_with_path(TREE)[0][0], simple=True) == \
        jax.tree_util.keystr(jax.tree.leaves_with_path(TREE)[0][0], simple=True)


def test_transpose_and_broadcast():
    pairs = [(1, 2), (3, 4), (5, 6)]
    outer, inner = astjax.tree.structure([0, 0, 0]), astjax.tree.structure((0, 0))
    assert astjax.tree.transpose(outer, inner, pairs) == ([1, 3, 5], [2, 4, 6])
    assert astjax.tree.broadcast([1, 2], [(0, 0), {"a": 0}]) == \
        jax.tree.broadcast([1, 2], [(0, 0), {"a": 0}])


@tree_util.register_pytree_node_class
class Affine:
    def __init__(self, w, b, name="affine"):
        self.w, self.b, self.name = w, b, name

    def tree_flatten(self):
        return (self.w, self.b), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        return cls(*children, name=name)

    def __call__(self, x):
        return x @ self.w + self.b


@tree_util.register_dataclass
@dataclasses.dataclass
class Layer:
    w: np.ndarray
    scale: float = astjax.tree.static(default=2.0)


def affine_loss(model, x):
    return jnp.sum(model(x) ** 2)


def layer_loss(layer, x):
    return jnp.sum(jnp.tanh(x @ layer.w) * layer.scale)


def test_registered_classes_and_dataclasses_pass_through_jit_and_grad():
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    model = Affine(np.full((3, 2), 0.5), np.array([0.1, -0.2]))
    grads = astjax.jit(astjax.grad(affine_loss))(model, x)
    assert isinstance(grads, Affine) and grads.name == "affine"
    y = x @ model.w + model.b
    np.testing.assert_allclose(grads.w, 2 * x.T @ y)
    np.testing.assert_allclose(grads.b, 2 * y.sum(0))
    layer = Layer(np.full((3, 4), 0.25), scale=3.0)
    assert astjax.tree.leaves(layer) == [layer.w]  # (scale is static data)
    g = astjax.jit(astjax.grad(layer_loss))(layer, x)
    np.testing.assert_allclose(g.w, x.T @ (3.0 * (1 - np.tanh(x @ layer.w) ** 2)))
    assert g.scale == 3.0


def test_partial_is_a_pytree_of_its_arguments():
    scaled = tree_util.Partial(np.multiply, np.arange(3.0))
    assert astjax.tree.leaves(scaled) == [scaled.args[0]]
    doubled = astjax.tree.map(lambda a: a * 2, scaled)
    np.testing.assert_array_equal(doubled(1.0), [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(tree_util.Partial(scaled, 2.0)(), [0.0, 2.0, 4.0])
