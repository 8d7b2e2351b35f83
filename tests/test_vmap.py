"""vmap: batched results equal a Python loop over the examples (the oracle), for the functions in
vmap_cases.py and the shared corpus, with several in_axes/out_axes; composition with grad, jit and
itself; readable, vectorised generated code; errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import astjax as jax
import astjax.numpy as jnp
import vmap_cases
from astjax import lax
from astjax.core.primitives import missing
from astjax.errors import AstjaxError, ShapeError, TransformError
from astjax.tree_util import tree_flatten, tree_map

SETTINGS = settings(max_examples=10, deadline=None)


def stack(trees, axis=0):
    return tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs], axis=axis), *trees)


def batch_args(lanes, in_axes):
    """The batched arguments for these per-example argument tuples (None: lane 0's value)."""
    axes = [in_axes] * len(lanes[0]) if not isinstance(in_axes, tuple) else in_axes
    return tuple(lanes[0][i] if a is None else stack([lane[i] for lane in lanes], a)
                 for i, a in enumerate(axes))


def unbatched_same(lanes, in_axes):
    """Lanes with every unbatched argument replaced by lane 0's (what vmap sees)."""
    if not isinstance(in_axes, tuple):
        return lanes
    return [tuple(lanes[0][i] if a is None else arg for i, (arg, a) in enumerate(zip(lane, in_axes)))
            for lane in lanes]


def assert_trees_close(got, want, rtol=1e-7, atol=1e-9):
    got_leaves, got_tree = tree_flatten(got)
    want_leaves, want_tree = tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                   rtol=rtol, atol=atol)


_TRANSFORMED: dict = {}


def _cached(key, make):
    """One transformed function per key, so examples of one test reuse its compilations."""
    if key not in _TRANSFORMED:
        _TRANSFORMED[key] = make()
    return _TRANSFORMED[key]


# ---------------------------------------------------------------- every function, several in_axes
PARAMS = [(name, axes) for name, (_, _, choices) in vmap_cases.CASES.items() for axes in choices]


@pytest.mark.parametrize("name,in_axes", PARAMS, ids=[f"{n}-{a}" for n, a in PARAMS])
@SETTINGS
@given(data=st.data())
def test_vmap_matches_a_loop(name, in_axes, data):
    fun, strategies, _ = vmap_cases.CASES[name]
    size = data.draw(st.integers(1, 4), label="batch size")
    lanes = unbatched_same([data.draw(st.tuples(*strategies)) for _ in range(size)], in_axes)
    one = _cached(("jit", name), lambda: jax.jit(fun)) if name in vmap_cases.JIT_ORACLE else fun
    want = stack([one(*lane) for lane in lanes])
    batched = _cached((name, in_axes), lambda: jax.vmap(fun, in_axes=in_axes))
    got = batched(*batch_args(lanes, in_axes))
    assert_trees_close(got, want)


@pytest.mark.parametrize("out_axes", [1, -1, 0])
def test_out_axes(out_axes):
    xs = np.random.default_rng(0).standard_normal((4, 3))
    got = jax.vmap(vmap_cases.elementwise, out_axes=out_axes)(xs)
    want = stack([vmap_cases.elementwise(x) for x in xs], axis=out_axes)
    np.testing.assert_allclose(got, want)


def test_out_axes_pytree_and_none():
    rng = np.random.default_rng(1)
    c0, xs = rng.standard_normal(2), rng.standard_normal((3, 4, 2))
    carry, ys = jax.vmap(vmap_cases.scan_rows, in_axes=(None, 0), out_axes=(0, 1))(c0, xs)
    want = [vmap_cases.scan_rows(c0, x) for x in xs]
    np.testing.assert_allclose(carry, np.stack([c for c, _ in want]))
    np.testing.assert_allclose(ys, np.stack([y for _, y in want], axis=1))
    f = jax.vmap(lambda x, w: (x * w, w * 2.0), in_axes=(0, None), out_axes=(0, None))
    got, w2 = f(xs[:, 0], c0)
    np.testing.assert_allclose(w2, c0 * 2.0)


def test_in_axes_pytree_prefix():
    rng = np.random.default_rng(2)
    params = {"w1": rng.standard_normal((3, 4)), "b1": rng.standard_normal((5, 4)),
              "w2": rng.standard_normal((4, 2))}
    xs = rng.standard_normal((5, 3))
    axes = ({"w1": None, "b1": 0, "w2": None}, 0)
    got = jax.vmap(vmap_cases.mlp, in_axes=axes)(params, xs)
    want = [vmap_cases.mlp(dict(params, b1=params["b1"][k]), xs[k]) for k in range(5)]
    np.testing.assert_allclose(got, want)


def test_keyword_arguments_are_not_batched():
    xs = np.arange(6.0).reshape(3, 2)
    got = jax.vmap(lambda x, scale=1.0: x * scale)(xs, scale=np.float64(3.0))
    np.testing.assert_allclose(got, xs * 3.0)


# ---------------------------------------------------------------- the shared corpus
def _corpus_cases():
    try:
        from corpus import CASES
    except ImportError:
        return []
    return [c for c in CASES if c.batchable]


def _lane(args, k):
    """Example k: floats moved a little (keeping signs of positive inputs), the rest unchanged."""
    def move(x):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            return (x * (1.0 - 0.1 * k) + 0.02 * k).astype(x.dtype)
        return x
    return tree_map(move, args)


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.name)
@settings(max_examples=3, deadline=None)
@given(data=st.data())
def test_corpus_case_batches(case, data):
    args = data.draw(case.args())
    lanes = [_lane(args, k) for k in range(3)]
    in_axes = tuple(None if i in case.static_argnums else 0 for i in range(len(args)))
    lanes = unbatched_same(lanes, in_axes)
    want = stack([case.expected(*lane) for lane in lanes])
    jitted = _cached(("corpus-jit", case.name), lambda: jax.jit(case.fun,
                                                               static_argnums=case.static_argnums))
    try:
        jitted(*lanes[0])
    except AstjaxError as e:  # not a vmap problem: test_corpus_jit reports it
        pytest.skip(f"jit itself fails on this input: {e.message}")
    vf = _cached(("corpus", case.name), lambda: jax.jit(jax.vmap(case.fun, in_axes=in_axes),
                                                        static_argnums=case.static_argnums))
    got = vf(*batch_args(lanes, in_axes))
    tol = 2e-4 if any(np.asarray(x).dtype == np.float32 for x in tree_flatten(args)[0]) else 1e-7
    assert_trees_close(got, want, rtol=tol, atol=tol)


# ---------------------------------------------------------------- composition
def logreg_loss(w, x, y):
    z = jnp.dot(x, w)
    return jnp.logaddexp(0.0, z) - y * z


def _logreg_data(n=6, d=4):
    rng = np.random.default_rng(3)
    return rng.standard_normal(d), rng.standard_normal((n, d)), (rng.random(n) > 0.5) * 1.0


def test_per_example_gradients():
    w, xs, ys = _logreg_data()
    got = jax.jit(jax.vmap(jax.grad(logreg_loss), in_axes=(None, 0, 0)))(w, xs, ys)
    want = np.stack([jax.grad(logreg_loss)(w, x, y) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_grad_of_a_function_calling_vmap():
    w, xs, ys = _logreg_data()

    def total(w):
        return jnp.sum(jax.vmap(logreg_loss, in_axes=(None, 0, 0))(w, xs, ys))
    got = jax.grad(total)(w)
    want = sum(jax.grad(logreg_loss)(w, x, y) for x, y in zip(xs, ys))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def loop_loss(x):
    def body(i, c):
        return jnp.sin(c) * x + c
    return jnp.sum(lax.fori_loop(0, 4, body, x))


def newton_value(a):
    return vmap_cases.newton_sqrt(a)[0]


def test_vmap_of_grad_through_loops():
    xs = np.random.default_rng(4).standard_normal((3, 2))
    got = jax.vmap(jax.grad(loop_loss))(xs)
    np.testing.assert_allclose(got, np.stack([jax.grad(loop_loss)(x) for x in xs]), rtol=1e-10)
    a = np.array([0.5, 4.0, 30.0])
    got = jax.grad(lambda a: jnp.sum(jax.vmap(newton_value)(a)))(a)
    np.testing.assert_allclose(got, 0.5 / np.sqrt(a), rtol=1e-6)


def test_nested_vmap():
    xs = np.random.default_rng(5).standard_normal((2, 3, 4))
    got = jax.vmap(jax.vmap(vmap_cases.softmax))(xs)
    np.testing.assert_allclose(got, np.stack([[vmap_cases.softmax(r) for r in x] for x in xs]))
    u, v = xs[0, 0], xs[1, :, :2].reshape(-1)
    outer = jax.vmap(jax.vmap(lambda a, b: a * b + 1.0, in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(outer(u, v), np.outer(u, v) + 1.0)


def test_vmap_of_jit_and_jit_of_vmap():
    xs = np.random.default_rng(6).standard_normal((3, 2, 3))
    want = np.stack([vmap_cases.softmax(x) for x in xs])
    np.testing.assert_allclose(jax.vmap(jax.jit(vmap_cases.softmax))(xs), want)
    np.testing.assert_allclose(jax.jit(jax.vmap(vmap_cases.softmax))(xs), want)


def test_batched_while_lanes_stop_at_different_trip_counts():
    a = np.array([0.01, 1.0, 2.0, 1e4])
    x, trips = jax.vmap(vmap_cases.newton_sqrt)(a)
    want = [vmap_cases.newton_sqrt(v) for v in a]
    np.testing.assert_allclose(x, [w[0] for w in want])
    np.testing.assert_array_equal(trips, [w[1] for w in want])
    assert len(set(trips.tolist())) > 1


# ---------------------------------------------------------------- generated code
def test_batched_while_is_vectorised_and_readable():
    f = jax.vmap(vmap_cases.newton_sqrt)
    f(np.array([1.0, 2.0]))
    source = f.source
    assert "def vmap_newton_sqrt(a):" in source
    assert "lax.while_loop(" in source and "lax.select(running" in source
    assert "lax.reduce_or(running, axes=(0,))" in source
    assert "for " not in source


def test_python_if_becomes_a_select_per_lane():
    f = jax.vmap(vmap_cases.python_if)
    f(np.ones((2, 3)))
    assert "lax.cond(" not in f.source and "lax.select(" in f.source


def test_every_primitive_has_a_batching_rule():
    assert missing("batch") == []


# ---------------------------------------------------------------- errors
def test_in_axes_length_must_match_arguments():
    with pytest.raises(TransformError, match="in_axes has 3 entries.*2 positional"):
        jax.vmap(lambda x, y: x + y, in_axes=(0, 0, None))(np.ones(2), np.ones(2))


def test_batch_sizes_must_agree():
    def f(x, y):
        return x + y
    with pytest.raises(ShapeError, match=r"x \(axis 0\) has size 3 but y \(axis 0\) has size 4"):
        jax.vmap(f)(np.ones(3), np.ones(4))


def test_axis_out_of_range():
    with pytest.raises(ShapeError, match="in_axes=2 is out of range for x"):
        jax.vmap(lambda x: x, in_axes=2)(np.ones((2, 3)))


def test_unbatched_output_with_batched_value():
    with pytest.raises(TransformError, match="out_axes is None for output 0"):
        jax.vmap(lambda x: x * 2.0, out_axes=None)(np.ones(3))


def test_needs_a_batched_argument_or_axis_size():
    with pytest.raises(TransformError, match="at least one batched argument"):
        jax.vmap(lambda x: x, in_axes=None)(np.ones(3))
    np.testing.assert_allclose(jax.vmap(lambda x: x + 1.0, in_axes=None, axis_size=2)(np.ones(3)),
                               np.full((2, 3), 2.0))


@pytest.mark.parametrize("backend", ["numpy", "numba", "xla"])
def test_grad_of_while_with_per_lane_trip_counts(backend):
    """Each lane's reverse sweep runs its own number of steps: per-example gradients against
    a Python loop of grad and against the closed form (Newton's sqrt: 1 / (2 sqrt(a)))."""
    a = np.array([0.5, 2.0, 9.0, 100.0, 1e4])
    got = jax.jit(jax.vmap(jax.grad(vmap_cases.newton_root)), backend=backend)(a)
    np.testing.assert_allclose(got, 0.5 / np.sqrt(a), rtol=1e-9)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(newton_value)), backend=backend)(
        np.array([1.0, 9.0])), [jax.grad(newton_value)(v) for v in (1.0, 9.0)], rtol=1e-12)
    xs = np.array([0.1, 1.0, 3.0, 20.0])
    per_lane = jax.jit(jax.vmap(jax.grad(vmap_cases.grow_and_count), in_axes=(0, None)),
                       backend=backend)(xs, 10.0)
    loop = [jax.grad(vmap_cases.grow_and_count)(x, 10.0) for x in xs]
    np.testing.assert_allclose(per_lane, loop, rtol=1e-12)
    eps = 1e-6  # and against central differences (each lane's trip count is locally constant)
    fd = [(vmap_cases.grow_and_count(x + eps, 10.0) - vmap_cases.grow_and_count(x - eps, 10.0))
          / (2 * eps) for x in xs]
    np.testing.assert_allclose(per_lane, fd, rtol=1e-6)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_arrays_in_captured_pytrees_index_with_batched_values(backend):
    """A namedtuple's, a dict's and a list's arrays, read with a traced index under vmap and
    jacfwd, as a global array is (each read afresh at every call)."""
    index = np.array([0, 2, 4, 1])
    want = np.array([vmap_cases.pick_from_pytrees(i) for i in index])
    batched = jax.jit(jax.vmap(vmap_cases.pick_from_pytrees), backend=backend)
    np.testing.assert_allclose(batched(index), want)
    d = jax.jit(jax.jacfwd(vmap_cases.scaled_pick), backend=backend)(np.float64(1.5), 3)
    np.testing.assert_allclose(d, 2 * 1.5 * vmap_cases.PARAMS.w[3])
    old = vmap_cases.TABLE["w"]
    vmap_cases.TABLE["w"] = old + 100.0  # read afresh: the new values count
    try:
        np.testing.assert_allclose(batched(index), want + 100.0)
    finally:
        vmap_cases.TABLE["w"] = old
