"""grad and value_and_grad on realistic functions, against central finite differences (float64)
and against jax.grad running the same source (JAX as an oracle only).

The functions live in ad_cases.py. For JAX, `as_jax` re-creates a function with `jnp`, `lax`
and `astjax` bound to JAX's modules. jax.grad without jit runs Python `if`/`while` on concrete
values, so it is an oracle for those too (it cannot differentiate a lax.while_loop: the
data-dependent loops here are Python loops, which astjax converts to while_loop).
"""
import re
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ad_cases as ad
import astjax
from astjax.errors import DtypeError, TransformError
from astjax.tree_util import tree_flatten, tree_unflatten

jax = pytest.importorskip("jax")


@pytest.fixture(autouse=True, scope="module")
def _jax_in_float64():
    """JAX as the float64 oracle for this module only (the flag is global to the process)."""
    with jax.enable_x64(True):
        yield

EPS = 1e-6
RNG = np.random.default_rng(20240601)


def as_jax(fn):
    """The same code with astjax's modules swapped for JAX's (in the helpers it calls too)."""
    import jax.numpy as jjnp
    scope = dict(fn.__globals__, jnp=jjnp, lax=jax.lax, astjax=jax)

    def rebound(f):
        return types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
    for name, value in list(scope.items()):
        if isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__:
            scope[name] = rebound(value)
    return rebound(fn)


def normal(*shape):
    return RNG.standard_normal(shape)


def pick(*names):
    """The CASES rows with these names, as pytest params."""
    return [pytest.param(*c, id=c[0]) for c in CASES if c[0] in names]


# ---------------------------------------------------------------- oracles
def fd_check(fun, args, argnums, grads):
    """<grads, v> against (f(x + eps v) - f(x - eps v)) / 2 eps for one random direction v.

    The forward pass is astjax.jit(fun) in float64. Central differences have truncation error
    ~eps^2 |f'''| and rounding error ~1e-16 |f| / eps, both < 1e-8 for these O(1)-valued
    functions; 1e-6 relative leaves margin and still catches any wrong derivative."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    grads = (grads,) if isinstance(argnums, int) else tuple(grads)
    forward = astjax.jit(fun)
    directions = {n: [RNG.standard_normal(np.shape(leaf)) for leaf in tree_flatten(args[n])[0]]
                  for n in nums}

    def at(step):
        moved = list(args)
        for n in nums:
            leaves, tree = tree_flatten(args[n])
            moved[n] = tree_unflatten(tree, [np.asarray(x) + step * v
                                             for x, v in zip(leaves, directions[n])])
            if np.ndim(args[n]) == 0 and isinstance(args[n], float):
                moved[n] = float(moved[n])
        return float(forward(*moved))

    lhs = sum(float(np.sum(np.asarray(g) * v)) for n, grad in zip(nums, grads)
              for g, v in zip(tree_flatten(grad)[0], directions[n]))
    rhs = (at(EPS) - at(-EPS)) / (2 * EPS)
    assert abs(lhs - rhs) <= 1e-6 * (1 + abs(lhs) + abs(at(0.0))), (lhs, rhs)


def jax_check(fun, args, argnums, grads):
    expected = jax.grad(as_jax(fun), argnums=argnums)(*args)
    got_leaves, got_tree = tree_flatten(grads)
    want_leaves = jax.tree_util.tree_leaves(expected)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-11)


# ---------------------------------------------------------------- the functions
def mlp_args():
    labels = np.eye(3)[RNG.integers(0, 3, 6)]
    params = {"w1": normal(4, 5), "b1": normal(5), "w2": normal(5, 3), "b2": normal(3)}
    return params, normal(6, 4), labels


def rnn_args():
    params = {"wh": normal(3, 3) * 0.5, "wx": normal(3, 2), "b": normal(3)}
    return params, normal(5, 2)


# (name, function, args, argnums)
CASES = [
    ("mlp_softmax_xent", ad.mlp_loss, mlp_args(), 0),
    ("mlp_all_args", ad.mlp_loss, mlp_args(), (0, 1)),
    ("logsumexp", ad.logsumexp, (normal(7),), 0),
    ("if_then", ad.if_on_value, (np.abs(normal(4)) + 0.1,), 0),
    ("if_else", ad.if_on_value, (-np.abs(normal(4)) - 0.1,), 0),
    ("early_return_taken", ad.early_return, (np.array([0.3, 1.7, -0.2]),), 0),
    ("early_return_not_taken", ad.early_return, (np.array([0.3, 0.7, -0.2]),), 0),
    ("for_rows_scan", ad.for_rows, (normal(4, 3), normal(3, 3) * 0.5), (0, 1)),
    ("for_static_range", ad.for_static, (normal(4),), 0),
    ("fori_loop", ad.fori, (normal(4),), 0),
    ("scan_rnn_dict_carry", ad.rnn, rnn_args(), (0, 1)),
    ("lax_cond_true", ad.lax_cond, (np.abs(normal(3)), normal(3)), (0, 1)),
    ("lax_cond_false", ad.lax_cond, (-np.abs(normal(3)), normal(3)), (0, 1)),
    *[(f"lax_switch_{i}", ad.lax_switch, (normal(4), np.int64(i)), 0) for i in range(3)],
    ("where", ad.where_fn, (normal(6),), 0),
    ("slices_newaxis_at_add", ad.indexing, (normal(5), normal(3)), (0, 1)),
    ("take_along_axis", ad.take_along, (normal(4, 3), RNG.integers(0, 3, (4, 2))), 0),
    ("matmul_einsum", ad.contractions, (normal(3, 4), normal(4, 2)), (0, 1)),
    ("argnums_int_middle", ad.three_args, (normal(3), normal(3), normal(3)), 1),
    ("argnums_tuple", ad.three_args, (normal(3), normal(3), normal(3)), (0, 2)),
    ("pytree_dict_of_tuple", ad.pytree_params,
     ({"layer": (normal(3, 4), normal(4)), "scale": np.float64(1.5)}, normal(2, 3)), 0),
    ("python_scalar_arg", ad.with_scalar, (normal(4), 0.7), 1),
    ("stop_gradient", ad.with_stop_gradient, (normal(4),), 0),
    ("checkpoint_inside", ad.checkpointed, (normal(5),), 0),
]


@pytest.mark.parametrize("name,fun,args,argnums", pick(*[c[0] for c in CASES]))
def test_grad_matches_jax(name, fun, args, argnums):
    jax_check(fun, args, argnums, astjax.grad(fun, argnums=argnums)(*args))


@pytest.mark.parametrize("name,fun,args,argnums",
                         pick(*[c[0] for c in CASES if c[0] != "stop_gradient"]))
def test_grad_matches_finite_differences(name, fun, args, argnums):
    fd_check(fun, args, argnums, astjax.grad(fun, argnums=argnums)(*args))


# ---------------------------------------------------------------- data-dependent while loops
def while_break_trips(x):
    """while_break's trip count and its closest distance to the break threshold (NumPy)."""
    y, margins = np.asarray(x), []
    for i in range(8):
        y = np.sin(y) + y * 1.25
        margins.append(abs(np.max(y) - 2.0))
        if np.max(y) > 2.0:
            return i + 1, min(margins)
    return 8, min(margins)


@pytest.mark.parametrize("scale", [8.0, 2.0, 0.6, 0.25, 0.05])
def test_while_with_data_dependent_trip_count(scale):
    x = np.array([0.5, -0.3, 0.8]) * scale
    trips, margin = ad.while_growth_trips(x)
    assert margin > 1e-3   # FD steps never change the trip count
    grads = astjax.grad(ad.while_growth)(x)
    fd_check(ad.while_growth, (x,), 0, grads)
    jax_check(ad.while_growth, (x,), 0, grads)


def test_while_trip_counts_differ():
    counts = {ad.while_growth_trips(np.array([0.5, -0.3, 0.8]) * s)[0]
              for s in (8.0, 2.0, 0.6, 0.25, 0.05)}
    assert len(counts) >= 4


@pytest.mark.parametrize("scale", [3.0, 1.2, 0.5, 0.1])
def test_while_with_break(scale):
    x = np.array([0.4, -0.2, 0.9]) * scale
    trips, margin = while_break_trips(x)
    assert margin > 1e-3
    grads = astjax.grad(ad.while_break)(x)
    fd_check(ad.while_break, (x,), 0, grads)
    jax_check(ad.while_break, (x,), 0, grads)


def test_while_with_break_trip_counts_differ():
    assert len({while_break_trips(np.array([0.4, -0.2, 0.9]) * s)[0]
                for s in (3.0, 1.2, 0.5, 0.1)}) >= 3


# ---------------------------------------------------------------- value_and_grad, has_aux, dtypes
def test_value_and_grad_returns_the_value():
    args = mlp_args()
    value, grads = astjax.value_and_grad(ad.mlp_loss)(*args)
    want_value, want_grads = jax.value_and_grad(as_jax(ad.mlp_loss))(*args)
    np.testing.assert_allclose(value, want_value, rtol=1e-12)
    assert set(grads) == {"w1", "b1", "w2", "b2"}
    for k in grads:
        np.testing.assert_allclose(grads[k], want_grads[k], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("with_value", [False, True])
def test_has_aux(with_value):
    w, x = normal(3), normal(4, 3)
    transform = astjax.value_and_grad if with_value else astjax.grad
    oracle = jax.value_and_grad if with_value else jax.grad
    got = transform(ad.loss_with_aux, has_aux=True)(w, x)
    want = oracle(as_jax(ad.loss_with_aux), has_aux=True)(w, x)
    if with_value:
        (value, aux), grads = got
        (want_value, want_aux), want_grads = want
        np.testing.assert_allclose(value, want_value, rtol=1e-12)
    else:
        grads, aux = got
        want_grads, want_aux = want
    np.testing.assert_allclose(grads, want_grads, rtol=1e-9)
    np.testing.assert_allclose(aux["pred"], x @ w, rtol=1e-12)
    np.testing.assert_allclose(aux["norm"], w @ w, rtol=1e-12)
    fd_check(lambda_free_aux_value, (w, x), 0, grads)


def lambda_free_aux_value(w, x):
    return ad.loss_with_aux(w, x)[0]


@pytest.mark.parametrize("name,fun,args,argnums", pick(
    "mlp_softmax_xent", "logsumexp", "scan_rnn_dict_carry", "if_then", "matmul_einsum",
    "slices_newaxis_at_add"))
def test_float32_gradients_stay_float32(name, fun, args, argnums):
    def single(x):
        return x.astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float64 else x
    narrow_args = tuple(tree_unflatten(tree_flatten(a)[1], [single(x) for x in tree_flatten(a)[0]])
                        for a in args)
    wide = tree_flatten(astjax.grad(fun, argnums=argnums)(*args))[0]
    narrow = tree_flatten(astjax.grad(fun, argnums=argnums)(*narrow_args))[0]
    for a, b in zip(wide, narrow):
        assert np.asarray(b).dtype == np.float32
        # float32 rounding (6e-8) amplified through a few dozen operations
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fun", [ad.divide_by_literal, ad.power_of_literal, ad.atan2_of_literal])
def test_float32_gradient_through_a_literal_operand(fun):
    """Rules applied to a literal operand compute on literals only (div(1.0, 2.0)): those must
    stay weak at run time, or they widen a float32 gradient to float64."""
    x = np.linspace(0.5, 1.5, 3).astype(np.float32)
    got = astjax.grad(fun)(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, jax.grad(as_jax(fun))(x), rtol=1e-6)


def test_python_scalar_gradient_is_a_float64_scalar():
    g = astjax.grad(ad.with_scalar, argnums=1)(normal(3), 0.5)
    assert np.shape(g) == () and np.asarray(g).dtype == np.float64


# ---------------------------------------------------------------- errors
def test_non_scalar_output_is_a_transform_error_naming_the_shape():
    with pytest.raises(TransformError, match=r"scalar.*shape \(3,\)"):
        astjax.grad(ad.vector_out)(np.ones(3))


def test_integer_input_is_a_dtype_error():
    with pytest.raises(DtypeError, match="int64"):
        astjax.grad(ad.logsumexp)(np.arange(3))


def test_primitive_without_rule_is_named(monkeypatch):
    from astjax.rewriters.ad import VJP
    monkeypatch.delitem(VJP._rules, "digamma")  # every user-facing primitive has one
    with pytest.raises(TransformError, match=r"lax\.digamma has no reverse-mode derivative"):
        astjax.grad(ad.uses_digamma)(np.linspace(0.5, 1.5, 4))


# ---------------------------------------------------------------- generated source, composition
def test_source_has_bar_names_and_provenance_and_compiles():
    g = astjax.grad(ad.if_on_value)
    g(np.ones(3))
    source = g.source
    assert "_bar" in source
    lines = [int(n) for n in re.findall(r"# grad of ad_cases\.py:(\d+)", source)]
    import inspect
    body, first = inspect.getsourcelines(ad.if_on_value)
    assert lines and all(first <= n < first + len(body) for n in lines)
    compile(source, "grad_if_on_value.py", "exec")


@pytest.mark.parametrize("name,fun,args,argnums", pick("mlp_softmax_xent", "if_else",
                                                     "scan_rnn_dict_carry"))
def test_jit_of_grad_equals_grad_of_jit(name, fun, args, argnums):
    plain = tree_flatten(astjax.grad(fun, argnums=argnums)(*args))[0]
    outer = tree_flatten(astjax.jit(astjax.grad(fun, argnums=argnums))(*args))[0]
    inner = tree_flatten(astjax.grad(astjax.jit(fun), argnums=argnums)(*args))[0]
    for a, b, c in zip(plain, outer, inner):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(c, a, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- known bugs (see the reasons)
def test_at_set_with_repeated_index():
    args = (np.ones(3), np.array([10.0, 20.0, 30.0]))
    grads = astjax.grad(ad.at_set_repeated, argnums=(0, 1))(*args)
    jax_check(ad.at_set_repeated, args, (0, 1), grads)


def test_einsum_with_implicit_output():
    a = normal(2, 3)
    jax_check(ad.einsum_implicit, (a,), 0, astjax.grad(ad.einsum_implicit)(a))


def test_gather_along_axis_1():
    args = (normal(3, 4), np.array([[0, 2], [1, 1], [3, 0]]))
    jax_check(ad.take_columns, args, 0, astjax.grad(ad.take_columns)(*args))




def test_grad_of_checkpoint_at_top_level():
    x = normal(5)
    np.testing.assert_allclose(astjax.grad(astjax.checkpoint(ad.logsumexp))(x),
                               astjax.grad(ad.logsumexp)(x), rtol=1e-12)


# ---------------------------------------------------------------- the shared corpus
# Differentiable corpus cases astjax cannot differentiate yet (missing features, not bugs).
CORPUS_GAPS = {"quadratic_form": "missing feature: einsum's rule rejects '...' subscripts"}


def _corpus():
    try:
        from corpus import CASES as corpus_cases
    except ImportError:
        return []
    return [pytest.param(c, id=c.name, marks=[pytest.mark.xfail(
        strict=True, raises=TransformError, reason=CORPUS_GAPS[c.name])] if c.name in CORPUS_GAPS
        else []) for c in corpus_cases if getattr(c, "differentiable", False)]


@pytest.mark.parametrize("case", _corpus())
@settings(max_examples=2, deadline=None, derandomize=True)
@given(data=st.data())
def test_corpus_grad_matches_finite_differences(case, data):
    """grad of sum(sin(float outputs)) over every differentiable corpus case, in float64."""
    args = tuple(_spread(a) for a in data.draw(case.args(np.float64)))
    code = case.fun.__code__
    names = code.co_varnames[:code.co_argcount]
    static = {names[i]: args[i] for i in case.static_argnums}
    dynamic = tuple(a for i, a in enumerate(args) if i not in case.static_argnums)
    argnums = tuple(i for i, a in enumerate(dynamic)
                    if all(np.asarray(x).dtype.kind == "f" for x in tree_flatten(a)[0]))
    if not argnums:
        pytest.skip("no float argument")
    outs = tree_flatten(case.expected(*args))[0]
    float_leaves = tuple(i for i, o in enumerate(outs)
                         if isinstance(o, (np.ndarray, np.generic)) and o.dtype.kind == "f")
    loss = ad.weighted_outputs(case.fun, static, float_leaves)
    grads = astjax.grad(loss, argnums=argnums)(*dynamic)
    fd_check(loss, dynamic, argnums, grads)


def _spread(arg):
    """hypothesis's first arrays are all zeros (ties for max, kinks of abs): add generic values."""
    leaves, tree = tree_flatten(arg)
    moved = [x + RNG.uniform(0.1, 0.3, np.shape(x)).astype(x.dtype)
             if isinstance(x, np.ndarray) and x.dtype.kind == "f" else x for x in leaves]
    return tree_unflatten(tree, moved)
