"""astjax.numpy against NumPy itself: eager values and dtypes equal NumPy's, and the same function
run under compilation (on abstract Vars) records equations whose avals match eager results and
whose primitive implementations, evaluated, give the eager values again."""
import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import astjax.numpy as jnp
from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.bind import Builder, building
from astjax.core.ir import Var
from astjax.errors import ConcretizationError, ShapeError

FAST = settings(max_examples=30, deadline=None)


# ---------------------------------------------------------------- compile-by-hand helpers
def compile_by_hand(fn, *args):
    """fn on abstract Vars shaped like args: (outputs, recorded equations, input Vars)."""
    params = [Var(AVal(np.shape(a), np.asarray(a).dtype)) for a in args]
    builder = Builder()
    with building(builder):
        out = fn(*params)
    return out, builder.eqns, params


def evaluate(eqns, env: dict):
    """Run each equation's NumPy impl: checks abstract rules and impls agree."""
    for eqn in eqns:
        prim = primitives.get(eqn.prim)
        ins = [env[a.id] if isinstance(a, Var) else a.value for a in eqn.ins]
        out = prim.impl(*ins, **eqn.params)
        for var, value in zip(eqn.outs, out if prim.multiple_results else [out]):
            value = np.asarray(value)
            assert (value.shape, value.dtype) == (var.shape, var.dtype), eqn.prim
            env[var.id] = value
    return env


def _leaves(x):
    return [y for item in x for y in _leaves(item)] if isinstance(x, (list, tuple)) else [x]


def check_compiled(fn, *args):
    eager = fn(*args)
    out, eqns, params = compile_by_hand(fn, *args)
    env = evaluate(eqns, {v.id: np.asarray(a) for v, a in zip(params, args)})
    for o, e in zip(_leaves(out), _leaves(eager)):
        e = np.asarray(e)
        value = env[o.id] if isinstance(o, Var) else np.asarray(o)
        assert (np.shape(value), value.dtype) == (e.shape, e.dtype)
        np.testing.assert_array_equal(value, e)


def check(ours, theirs, *args, compiled=True, rtol=None):
    """ours(*args) equals theirs(*args) in value and dtype; and compiles to the same."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = ours(*args), theirs(*args)
        for g, w in zip(_leaves(got), _leaves(want)):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
            assert g.shape == w.shape
            if rtol is None:
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
        if compiled:
            check_compiled(ours, *args)


# ---------------------------------------------------------------- strategies
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def arrays(dtypes=DTYPES, min_dims=0, max_dims=3, min_side=1, max_side=4):
    def build(dtype):
        elements = (st.floats(-5, 5, width=32) if np.dtype(dtype).kind == "f"
                    else st.integers(-5, 5))
        shape = hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                                 max_side=max_side)
        return hnp.arrays(dtype, shape, elements=elements)
    return st.sampled_from(dtypes).flatmap(build)


def floats(min_dims=0, max_dims=3, positive=False, **kw):
    lo = 0.125 if positive else -3
    return st.sampled_from([np.float32, np.float64]).flatmap(
        lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, max_side=4),
                             elements=st.floats(lo, 3, width=32)))


# ---------------------------------------------------------------- elementwise
UNARY = ["negative", "sign", "floor", "ceil", "rint", "absolute", "abs", "sqrt", "cbrt", "exp",
         "exp2", "expm1", "log1p", "sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh",
         "arcsinh", "isfinite", "square", "isnan", "isinf", "positive", "trunc", "fix",
         "deg2rad", "rad2deg", "sinc", "fabs", "signbit", "reciprocal", "logical_not",
         "conjugate", "real", "imag", "around"]
POSITIVE_UNARY = ["log", "log2", "log10", "sqrt", "reciprocal"]


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=12, deadline=None)
@given(x=floats())
def test_unary_matches_numpy(name, x):
    if name == "reciprocal":
        x = np.where(x == 0, 1, x).astype(x.dtype)
    check(getattr(jnp, name), getattr(np, name), x, rtol=2e-6 if name == "sinc" else None)


@pytest.mark.parametrize("name", POSITIVE_UNARY + ["arcsin", "arccos", "arctanh"])
@settings(max_examples=10, deadline=None)
@given(x=floats(positive=True))
def test_unary_on_its_domain_matches_numpy(name, x):
    if name in ("arcsin", "arccos", "arctanh"):
        x = (x / 3.5).astype(x.dtype)
    check(getattr(jnp, name), getattr(np, name), x)


BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "fmax",
          "fmin", "arctan2", "logaddexp", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "logical_and", "logical_or", "logical_xor", "copysign", "heaviside"]
# (float_power computes in its operands' float dtype, as JAX's: tests/test_parity.py)
INT_BINARY = ["floor_divide", "remainder", "mod", "fmod", "bitwise_and", "bitwise_or",
              "bitwise_xor", "left_shift", "right_shift"]


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_binary_matches_numpy_with_broadcasting(name, data):
    x = data.draw(floats(max_dims=2))
    y = data.draw(hnp.arrays(x.dtype, x.shape[-1:], elements=st.floats(-3, 3, width=32)))
    check(getattr(jnp, name), getattr(np, name), x, y)


@pytest.mark.parametrize("name", INT_BINARY)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_integer_binary_matches_numpy(name, data):
    dtype = data.draw(st.sampled_from([np.int32, np.int64]))
    x = data.draw(hnp.arrays(dtype, data.draw(hnp.array_shapes(max_dims=2, max_side=4)),
                             elements=st.integers(-20, 20)))
    lo = 0 if "shift" in name else 1
    y = data.draw(hnp.arrays(dtype, x.shape, elements=st.integers(lo, 4)))
    if name in ("floor_divide", "remainder", "mod", "fmod"):
        y = np.where(data.draw(st.booleans()), y, -y).astype(dtype)
    check(getattr(jnp, name), getattr(np, name), x, y)


def test_hypot_and_logaddexp2_are_close_to_numpy():
    x = np.linspace(-4, 4, 9, dtype=np.float32)
    check(jnp.hypot, np.hypot, x, x[::-1], rtol=1e-6)
    check(jnp.logaddexp2, np.logaddexp2, x, x[::-1], rtol=1e-6)


@pytest.mark.parametrize("scalar", [2, 2.5, True])
def test_python_scalars_are_weak(scalar):
    x = np.arange(3, dtype=np.float32)
    check(lambda a: jnp.multiply(a, scalar), lambda a: np.multiply(a, scalar), x)
    check(lambda a: jnp.maximum(scalar, a), lambda a: np.maximum(scalar, a), x)


@settings(max_examples=30, deadline=None)
@given(x=floats(), lo=st.floats(-2, 0), hi=st.floats(0, 2))
def test_where_and_clip(x, lo, hi):
    check(lambda a: jnp.where(a > 0, a, 0.5), lambda a: np.where(a > 0, a, 0.5), x)
    check(lambda a: jnp.clip(a, lo, hi), lambda a: np.clip(a, lo, hi), x)
    check(lambda a: jnp.clip(a, max=hi), lambda a: np.clip(a, max=hi), x)


def test_round_with_decimals_and_isclose():
    x = np.array([1.2345, -2.5, 0.5, 1.5], np.float32)
    check(lambda a: jnp.round(a, 2), lambda a: np.round(a, 2), x)
    check(jnp.round, np.round, x)
    y = np.array([1.2345001, np.inf, np.nan, 1.6], np.float32)
    check(lambda a, b: jnp.isclose(a, b, equal_nan=True),
          lambda a, b: np.isclose(a, b, equal_nan=True), x, y)
    assert bool(jnp.allclose(x, x)) and not bool(jnp.allclose(x, y))


# ---------------------------------------------------------------- reductions
def axis_for(x, data):
    """None, an int (maybe negative) or a tuple of distinct axes of x."""
    rank = x.ndim
    if rank == 0:
        return data.draw(st.sampled_from([None, ()]))
    single = st.integers(-rank, rank - 1)
    several = st.lists(st.integers(0, rank - 1), unique=True, max_size=rank).map(tuple)
    return data.draw(st.one_of(st.none(), single, several))


REDUCTIONS = ["sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "all", "any",
              "ptp", "count_nonzero"]


@pytest.mark.parametrize("name", REDUCTIONS)
@settings(max_examples=25, deadline=None)
@given(data=st.data(), x=arrays(), keepdims=st.booleans())
def test_reductions_match_numpy(name, data, x, keepdims):
    """NumPy's values; mean/var/std of integers in JAX's float for them (float32 up to 32
    bits, NumPy's float64 for 64)."""
    axis = axis_for(x, data)
    floats = name in ("mean", "var", "std")
    check(lambda a: getattr(jnp, name)(a, axis=axis, keepdims=keepdims),
          lambda a: getattr(np, name)(a.astype(jax_float(a.dtype)) if floats else a,
                                      axis=axis, keepdims=keepdims), x,
          rtol=1e-5 if floats else None)


def jax_float(dtype) -> np.dtype:
    """The float JAX computes an integer dtype's float functions in."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return dtype
    return np.dtype(np.float64 if dtype.itemsize == 8 else np.float32)


@settings(max_examples=20, deadline=None)
@given(x=floats(min_dims=1), ddof=st.integers(0, 1))
def test_var_ddof_and_dtype_argument(x, ddof):
    if x.shape[-1] > ddof:
        check(lambda a: jnp.var(a, axis=-1, ddof=ddof), lambda a: np.var(a, axis=-1, ddof=ddof),
              x, rtol=1e-5)
    check(lambda a: jnp.sum(a, dtype=np.float64), lambda a: np.sum(a, dtype=np.float64), x,
          rtol=1e-12)


@pytest.mark.parametrize("name", ["argmax", "argmin", "cumsum", "cumprod"])
@settings(max_examples=20, deadline=None)
@given(data=st.data(), x=arrays(min_dims=1))
def test_arg_and_cumulative_match_numpy(name, data, x):
    """NumPy's values; a cumulative sum or product of integers keeps their dtype (JAX's)."""
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    keep = name.startswith("cum") and x.dtype.kind in "iu"
    check(lambda a: getattr(jnp, name)(a, axis=axis),
          lambda a: getattr(np, name)(a, axis=axis).astype(a.dtype) if keep
          else getattr(np, name)(a, axis=axis), x)


# JAX's result dtypes (jax_enable_x64 on) of reductions over arrays of each dtype.
REDUCTION_DTYPES = {
    np.int32: {"sum": "int64", "prod": "int64", "mean": "float32", "cumsum": "int32",
               "max": "int32", "var": "float32"},
    np.bool_: {"sum": "int64", "prod": "int64", "mean": "float32", "cumsum": "int64",
               "max": "bool", "var": "float32"},
    np.float32: {"sum": "float32", "prod": "float32", "mean": "float32", "cumsum": "float32",
                 "max": "float32", "var": "float32"},
    np.uint8: {"sum": "uint64", "prod": "uint64", "mean": "float32", "cumsum": "uint8",
               "max": "uint8", "var": "float32"},
    np.int64: {"sum": "int64", "prod": "int64", "mean": "float64", "cumsum": "int64",
               "max": "int64", "var": "float64"},
}


def test_reduction_dtypes_follow_jax():
    for dtype, expected in REDUCTION_DTYPES.items():
        x = np.ones((2, 3), dtype)
        got = {name: getattr(jnp, name)(x).dtype.name for name in expected}
        assert got == expected, dtype


def test_median_quantile_average_diff():
    x = np.array([[3.0, 1.0, 2.0, 8.0], [5.0, 4.0, 7.0, 6.0]], np.float32)
    check(lambda a: jnp.median(a, axis=1), lambda a: np.median(a, axis=1), x)
    check(lambda a: jnp.quantile(a, 0.3, axis=0), lambda a: np.quantile(a, 0.3, axis=0), x,
          rtol=1e-6)
    check(lambda a: jnp.average(a, axis=1, weights=np.arange(4.0)),
          lambda a: np.average(a, axis=1, weights=np.arange(4.0)), x, rtol=1e-6)
    check(lambda a: jnp.diff(a, n=2), lambda a: np.diff(a, n=2), x)


def test_bad_axis_is_a_shape_error():
    with pytest.raises(ShapeError, match="out of range"):
        jnp.sum(np.ones((2, 3)), axis=2)


# ---------------------------------------------------------------- shapes
@settings(max_examples=30, deadline=None)
@given(x=arrays(max_dims=4), data=st.data())
def test_reshape_transpose_and_friends(x, data):
    check(lambda a: jnp.reshape(a, (-1,)), lambda a: np.reshape(a, (-1,)), x)
    check(jnp.ravel, np.ravel, x)
    perm = tuple(data.draw(st.permutations(range(x.ndim))))
    check(lambda a: jnp.transpose(a, perm), lambda a: np.transpose(a, perm), x)
    check(jnp.transpose, np.transpose, x)
    axis = data.draw(st.integers(-x.ndim - 1, x.ndim))
    check(lambda a: jnp.expand_dims(a, axis), lambda a: np.expand_dims(a, axis), x)
    check(jnp.squeeze, np.squeeze, x)
    check(jnp.atleast_2d, np.atleast_2d, x)
    check(jnp.atleast_3d, np.atleast_3d, x)
    if x.ndim >= 2:
        i, j = data.draw(st.integers(-x.ndim, x.ndim - 1)), data.draw(st.integers(0, x.ndim - 1))
        check(lambda a: jnp.swapaxes(a, i, j), lambda a: np.swapaxes(a, i, j), x)
        check(lambda a: jnp.moveaxis(a, i, j), lambda a: np.moveaxis(a, i, j), x)
        check(lambda a: jnp.reshape(a, (x.shape[0], -1)), lambda a: a.reshape(x.shape[0], -1), x)


@settings(max_examples=30, deadline=None)
@given(x=arrays(min_dims=1), data=st.data())
def test_broadcast_flip_roll_repeat_tile(x, data):
    target = (2,) + x.shape
    check(lambda a: jnp.broadcast_to(a, target), lambda a: np.broadcast_to(a, target), x)
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    check(lambda a: jnp.flip(a, axis), lambda a: np.flip(a, axis), x)
    shift = data.draw(st.integers(-7, 7))
    check(lambda a: jnp.roll(a, shift, axis), lambda a: np.roll(a, shift, axis), x)
    reps = data.draw(st.integers(0, 3))
    check(lambda a: jnp.repeat(a, reps, axis), lambda a: np.repeat(a, reps, axis), x)
    tiles = tuple(data.draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    check(lambda a: jnp.tile(a, tiles), lambda a: np.tile(a, tiles), x)


def test_roll_by_an_abstract_shift():
    x = np.arange(10.0)
    check(lambda a, s: jnp.roll(a, s), lambda a, s: np.roll(a, int(s)), x, np.int64(3))


def test_broadcast_arrays_and_bad_broadcast():
    a, b = np.ones((3, 1), np.float32), np.arange(4)
    check(lambda x, y: jnp.broadcast_arrays(x, y), lambda x, y: np.broadcast_arrays(x, y), a, b)
    with pytest.raises(ShapeError):
        jnp.broadcast_to(np.ones(3), (4,))
    with pytest.raises(ShapeError, match="reshape"):
        jnp.reshape(np.ones(6), (4, -1))


@settings(max_examples=30, deadline=None)
@given(x=arrays(min_dims=1, max_dims=3), data=st.data())
def test_concatenate_stack_split(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda a, b: jnp.concatenate([a, b], axis), lambda a, b: np.concatenate([a, b], axis),
          x, x)
    check(lambda a, b: jnp.stack([a, b], axis), lambda a, b: np.stack([a, b], axis), x, x)
    check(lambda a: jnp.concatenate([a, a], axis=None), lambda a: np.concatenate([a, a], None), x)
    check(lambda a, b: jnp.hstack([a, b]), lambda a, b: np.hstack([a, b]), x, x)
    check(lambda a, b: jnp.vstack([a, b]), lambda a, b: np.vstack([a, b]), x, x)
    sections = data.draw(st.integers(1, 4))
    check(lambda a: jnp.array_split(a, sections, axis), lambda a: np.array_split(a, sections, axis),
          x)
    cuts = sorted(data.draw(st.lists(st.integers(0, x.shape[axis]), max_size=3)))
    check(lambda a: jnp.split(a, cuts, axis), lambda a: np.split(a, cuts, axis), x)


def test_meshgrid_and_pad():
    a, b = np.arange(3.0), np.arange(4)
    for indexing in ("xy", "ij"):
        check(lambda x, y: jnp.meshgrid(x, y, indexing=indexing),
              lambda x, y: np.meshgrid(x, y, indexing=indexing), a, b)
    m = np.arange(6).reshape(2, 3)
    check(lambda x: jnp.pad(x, ((1, 0), (2, 1)), constant_values=7),
          lambda x: np.pad(x, ((1, 0), (2, 1)), constant_values=7), m)


# ---------------------------------------------------------------- creation
def test_creation_matches_numpy():
    check(lambda: jnp.zeros((2, 3)), lambda: np.zeros((2, 3)))
    check(lambda: jnp.ones(4, jnp.int32), lambda: np.ones(4, np.int32))
    check(lambda: jnp.full((2, 2), 7), lambda: np.full((2, 2), 7))
    check(lambda: jnp.full((2, 2), 1.5, np.float32), lambda: np.full((2, 2), 1.5, np.float32))
    check(lambda: jnp.arange(5), lambda: np.arange(5))
    check(lambda: jnp.arange(1, 2, 0.25), lambda: np.arange(1, 2, 0.25))
    check(lambda: jnp.arange(10, 1, -3), lambda: np.arange(10, 1, -3))
    check(lambda: jnp.arange(0, 5, dtype=jnp.float32), lambda: np.arange(0, 5, dtype=np.float32))
    check(lambda: jnp.eye(3, 4, k=1), lambda: np.eye(3, 4, k=1))
    check(lambda: jnp.identity(3, jnp.int32), lambda: np.identity(3, np.int32))
    check(lambda: jnp.tri(3, 2, -1), lambda: np.tri(3, 2, -1, dtype=np.float32))  # (JAX's)
    check(lambda: jnp.array([[1, 2], [3, 4]]), lambda: np.array([[1, 2], [3, 4]]))
    check(lambda: jnp.asarray([1.0, 2.0], jnp.float32), lambda: np.asarray([1.0, 2.0], np.float32))


@settings(max_examples=30, deadline=None)
@given(start=st.floats(-5, 5), stop=st.floats(-5, 5), num=st.integers(0, 9),
       endpoint=st.booleans())
def test_linspace_matches_numpy(start, stop, num, endpoint):
    check(lambda: jnp.linspace(start, stop, num, endpoint), lambda: np.linspace(start, stop, num,
                                                                              endpoint), rtol=1e-12)


def test_linspace_of_arrays_and_integer_dtype():
    lo, hi = np.array([0.0, 1.0], np.float32), np.array([1.0, 3.0], np.float32)
    check(lambda a, b: jnp.linspace(a, b, 5), lambda a, b: np.linspace(a, b, 5), lo, hi, rtol=1e-6)
    check(lambda a, b: jnp.linspace(a, b, 4, axis=1), lambda a, b: np.linspace(a, b, 4, axis=1),
          lo, hi, rtol=1e-6)
    check(lambda: jnp.linspace(0, 10, 4, dtype=int), lambda: np.linspace(0, 10, 4, dtype=int))


def test_like_functions_keep_dtype_and_shape():
    x = np.ones((2, 3), np.float32)
    for name in ("zeros_like", "ones_like", "empty_like"):
        got = getattr(jnp, name)(x)
        assert got.dtype == np.float32 and got.shape == (2, 3)
    check(lambda a: jnp.full_like(a, 3), lambda a: np.full_like(a, 3), x)
    check(lambda a: jnp.zeros_like(a, dtype=jnp.int32), lambda a: np.zeros_like(a, np.int32), x)


@settings(max_examples=30, deadline=None)
@given(x=arrays(min_dims=2, max_dims=3), k=st.integers(-3, 3))
def test_triangles_and_diagonals(x, k):
    check(lambda a: jnp.tril(a, k), lambda a: np.tril(a, k), x)
    check(lambda a: jnp.triu(a, k), lambda a: np.triu(a, k), x)
    check(lambda a: jnp.diagonal(a, k), lambda a: np.diagonal(a, k), x)
    check(lambda a: jnp.diagonal(a, k, -1, 0), lambda a: np.diagonal(a, k, -1, 0), x)
    check(lambda a: jnp.trace(a, k), lambda a: np.trace(a, k), x)


@settings(max_examples=20, deadline=None)
@given(v=arrays(min_dims=1, max_dims=1), k=st.integers(-3, 3))
def test_diag_builds_and_reads(v, k):
    check(lambda a: jnp.diag(a, k), lambda a: np.diag(a, k), v)
    check(lambda a: jnp.diag(jnp.diag(a, k), k), lambda a: np.diag(np.diag(a, k), k), v)


def test_array_from_nested_abstract_values():
    def build(a, b):
        return jnp.array([[a, b], [b, 2.0]])
    check(build, lambda a, b: np.array([[a, b], [b, 2.0]]), np.float64(1.5), np.float64(-1.0))
    out, _, _ = compile_by_hand(lambda a: jnp.array([a, a]), np.ones(3, np.float32))
    assert (out.shape, out.dtype) == ((2, 3), np.float32)


def test_dtype_objects_convert_and_compare():
    assert np.dtype(jnp.float32) == np.float32 and jnp.float32 == np.dtype("float32")
    check(lambda a: jnp.float32(a), lambda a: np.asarray(a, np.float32), np.arange(3))
    check(lambda a: jnp.astype(a, jnp.int32), lambda a: a.astype(np.int32), np.arange(3.7))
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.result_type(jnp.float32, 1.0) == np.float32
    assert isinstance(np.ones(2), jnp.ndarray)


# ---------------------------------------------------------------- products
@settings(max_examples=30, deadline=None)
@given(data=st.data(), dtype=st.sampled_from([np.float32, np.float64, np.int64]))
def test_matmul_and_dot_match_numpy(data, dtype):
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    batch = data.draw(st.sampled_from([(), (2,), (3, 1)]))
    elems = st.integers(-5, 5)
    a = data.draw(hnp.arrays(dtype, batch + (n, k), elements=elems))
    b = data.draw(hnp.arrays(dtype, (1,) * len(batch) + (k, m), elements=elems))
    v = data.draw(hnp.arrays(dtype, (k,), elements=elems))
    check(jnp.matmul, np.matmul, a, b)
    check(jnp.matmul, np.matmul, a, v)
    check(jnp.matmul, np.matmul, v, b)
    check(jnp.dot, np.dot, a, b)
    check(jnp.dot, np.dot, a, v)
    check(jnp.dot, np.dot, v, v)
    check(jnp.vdot, np.vdot, a, a)
    check(jnp.inner, np.inner, a, v)
    check(jnp.outer, np.outer, v, a)
    matrix = b.reshape(k, m)
    check(lambda x, y: jnp.tensordot(x, y, 1), lambda x, y: np.tensordot(x, y, 1), a, matrix)
    check(lambda x, y: x @ y, np.matmul, a, b)
    check(jnp.kron, np.kron, v, a)


@pytest.mark.parametrize("subscripts,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("...i,...i->...", [(2, 3), (3,)]),
    ("i,j->ij", [(2,), (3,)]), ("ijk->kji", [(1, 2, 3)])])
def test_einsum_matches_numpy(subscripts, shapes):
    operands = [np.arange(np.prod(s), dtype=np.float32).reshape(s) for s in shapes]
    check(lambda *xs: jnp.einsum(subscripts, *xs), lambda *xs: np.einsum(subscripts, *xs),
          *operands)


def test_cross_and_tensordot_with_axis_lists():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 0, -1).reshape(2, 3)
    check(jnp.cross, np.cross, a, b)
    x, y = np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(4, 3)
    check(lambda p, q: jnp.tensordot(p, q, ([1, 2], [1, 0])),
          lambda p, q: np.tensordot(p, q, ([1, 2], [1, 0])), x, y)


@pytest.mark.parametrize("ord", [None, 1, 2, np.inf, -np.inf, 0, 3])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms(ord, keepdims):
    x = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]], np.float32)
    check(lambda a: jnp.linalg.norm(a, ord, axis=1, keepdims=keepdims),
          lambda a: np.linalg.norm(a, ord, axis=1, keepdims=keepdims), x, rtol=1e-6)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf])
def test_matrix_norms(ord):
    x = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]])
    check(lambda a: jnp.linalg.norm(a, ord), lambda a: np.linalg.norm(a, ord), x, rtol=1e-12)
    check(lambda a: jnp.linalg.norm(a, ord, axis=(1, 0), keepdims=True),
          lambda a: np.linalg.norm(a, ord, axis=(1, 0), keepdims=True), x, rtol=1e-12)
    check(jnp.linalg.norm, np.linalg.norm, np.arange(5), rtol=1e-12)


# ---------------------------------------------------------------- sorting and searching
@settings(max_examples=25, deadline=None)
@given(x=arrays(min_dims=1), data=st.data())
def test_sort_argsort_take(x, data):
    axis = data.draw(st.one_of(st.none(), st.integers(-x.ndim, x.ndim - 1)))
    check(lambda a: jnp.sort(a, axis), lambda a: np.sort(a, axis, kind="stable"), x)
    check(lambda a: jnp.argsort(a, axis), lambda a: np.argsort(a, axis, kind="stable"), x)
    size = x.size if axis is None else x.shape[axis]
    idx = data.draw(hnp.arrays(np.int64, (3,), elements=st.integers(-size, size - 1)))
    check(lambda a, i: jnp.take(a, i, axis), lambda a, i: np.take(a, i, axis), x, idx)
    order = np.argsort(x, axis=-1)
    check(lambda a, i: jnp.take_along_axis(a, i, -1), lambda a, i: np.take_along_axis(a, i, -1),
          x, order)


def test_searchsorted_select_unravel():
    a, v = np.array([1.0, 2.0, 2.0, 5.0]), np.array([0.0, 2.0, 3.0, 9.0])
    for side in ("left", "right"):
        check(lambda p, q: jnp.searchsorted(p, q, side),  # (int32 indices, as JAX's)
              lambda p, q: np.searchsorted(p, q, side).astype(np.int32), a, v)
    x = np.arange(6) - 3
    check(lambda t: jnp.select([t < -1, t > 1], [t, t * 10], 7),
          lambda t: np.select([t < -1, t > 1], [t, t * 10], 7), x)
    check(lambda i: jnp.unravel_index(i, (2, 3)), lambda i: np.unravel_index(i, (2, 3)),
          np.array([0, 4, 5]))


def test_data_dependent_shapes_need_concrete_values():
    assert [list(i) for i in jnp.nonzero(np.array([0, 3, 0, 4]))] == [[1, 3]]
    with pytest.raises(ConcretizationError, match="depends on the values"):
        compile_by_hand(jnp.nonzero, np.ones(3))


# ---------------------------------------------------------------- operators and methods of Vars
def test_operators_on_abstract_arrays_match_numpy():
    x, y = np.arange(1.0, 7.0).reshape(2, 3), np.arange(3, dtype=np.int32) + 1
    for op in (lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
               lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a ** b, lambda a, b: 2 - a,
               lambda a, b: 1.5 / b, lambda a, b: a < b, lambda a, b: a >= b, lambda a, b: a == b,
               lambda a, b: a != b, lambda a, b: -a, lambda a, b: +a, lambda a, b: abs(-a),
               lambda a, b: ~b, lambda a, b: b & 1, lambda a, b: 6 | b, lambda a, b: b ^ b,
               lambda a, b: a @ a.T, lambda a, b: a[1]):
        check(op, op, x, y)


METHOD_CALLS = [
    lambda a: a.sum(), lambda a: a.sum(axis=0, keepdims=True), lambda a: a.prod(1),
    lambda a: a.max(), lambda a: a.min(axis=-1), lambda a: a.mean(0), lambda a: a.var(),
    lambda a: a.std(ddof=1), lambda a: a.all(), lambda a: a.any(1), lambda a: a.argmax(),
    lambda a: a.argmin(axis=1), lambda a: a.cumsum(1), lambda a: a.cumprod(),
    lambda a: a.reshape(3, 2), lambda a: a.reshape((-1,)), lambda a: a.reshape(6, 1),
    lambda a: a.ravel(), lambda a: a.flatten(), lambda a: a.transpose(),
    lambda a: a.transpose(1, 0),
    lambda a: a.transpose((1, 0)), lambda a: a.swapaxes(0, 1), lambda a: a.astype(np.int32),
    lambda a: a.clip(2, 4), lambda a: a.round(), lambda a: a.dot(a.T), lambda a: a.T,
    lambda a: a.mT, lambda a: a.argsort(axis=0), lambda a: a.take([0, 2], 1),
    lambda a: a.conj(), lambda a: a.real, lambda a: a.imag, lambda a: a.squeeze(),
    lambda a: a.repeat(2, 0), lambda a: a.trace(), lambda a: a.diagonal(),
    lambda a: a.copy()]


@pytest.mark.parametrize("call", METHOD_CALLS, ids=range(len(METHOD_CALLS)))
def test_methods_of_abstract_arrays_match_numpy(call):
    x = np.array([[3.0, 1.0, 4.0], [1.5, 5.0, 9.0]], np.float32)
    out, eqns, params = compile_by_hand(call, x)
    want = np.asarray(call(x))
    value = evaluate(eqns, {params[0].id: x})[out.id] if isinstance(out, Var) else out
    assert (out.shape, out.dtype) == (want.shape, want.dtype)
    np.testing.assert_allclose(value, want, rtol=1e-6)


def test_sort_method_returns_a_sorted_copy():
    x = np.array([[3.0, 1.0, 4.0], [1.5, 5.0, 0.0]], np.float32)
    out, eqns, params = compile_by_hand(lambda a: a.sort(axis=0), x)
    np.testing.assert_array_equal(evaluate(eqns, {params[0].id: x})[out.id], np.sort(x, axis=0))


@pytest.mark.parametrize("use", [bool, int, float, lambda v: v.item(), lambda v: v.tolist(),
                                 lambda v: [0, 1][v], lambda v: v.nonzero()])
def test_static_uses_of_abstract_arrays_raise_concretization_error(use):
    with pytest.raises(ConcretizationError, match="static|depends"):
        compile_by_hand(use, np.int64(1))


def test_iteration_and_len_of_abstract_arrays():
    def rows(a):
        return jnp.stack([r * i for i, r in enumerate(a)]) + len(a)
    check(rows, rows, np.arange(6.0).reshape(3, 2))


# ---------------------------------------------------------------- astjax.lax against jax.lax
def _lax_cases():
    x = np.array([[-2.5, -0.5, 0.5], [1.5, 2.0, 3.25]], np.float32)
    i = np.array([[-7, 7, -6], [6, 5, -5]], np.int32)
    d = np.array([[2, -2, 4], [-4, 3, 3]], np.int32)
    return [
        ("add", (x, x)), ("sub", (x, x)), ("mul", (x, x)), ("div", (x, x)), ("div", (i, d)),
        ("rem", (i, d)), ("rem", (x, np.float32(0.75))), ("max", (x, x.T[:2, :2].sum())),
        ("neg", (x,)), ("sign", (x,)), ("floor", (x,)), ("ceil", (x,)), ("round", (x,)),
        ("abs", (x,)), ("exp", (x,)), ("tanh", (x,)), ("logistic", (x,)), ("erf", (x,)),
        ("sqrt", (np.abs(x),)), ("rsqrt", (np.abs(x),)), ("square", (x,)), ("atan2", (x, x[::-1])),
        ("integer_pow", (x, 3)), ("pow", (np.abs(x), x)), ("select", (x > 0, x, -x)),
        ("clamp", (np.float32(-1), x, np.float32(1))), ("convert_element_type", (x, np.int32)),
        ("broadcast_in_dim", (x, (4, 2, 3), (1, 2))), ("broadcast", (x, (2,))),
        ("reshape", (x, (3, 2))), ("transpose", (x, (1, 0))), ("rev", (x, (0, 1))),
        ("slice", (x, (0, 1), (2, 3), (1, 2))), ("slice_in_dim", (x, 1, -1, 1, 1)),
        ("index_in_dim", (x, -1, 1, False)), ("dynamic_slice", (x, (1, 1), (1, 2))),
        ("dynamic_update_slice", (x, np.ones((1, 2), np.float32), (1, 0))),
        ("dynamic_slice_in_dim", (x, 1, 2, 1)), ("dynamic_index_in_dim", (x, 1, 0, False)),
        ("concatenate", ([x, x], 1)), ("pad", (x, np.float32(0), ((1, 0, 1), (0, 2, 0)))),
        ("dot", (x, x.T)), ("dot_general", (x, x, (((1,), (1,)), ((), ())))),
        ("sort", (x[::-1],)), ("eq", (x, x)), ("lt", (x, 0.5)), ("bitwise_and", (i, d)),
        ("bitwise_not", (i,)), ("reduce_sum", (x, (0,))), ("cummax", (x, 1)),
        ("argmax", (x, 1, np.int32)), ("stop_gradient", (x,)),
        ("broadcasted_iota", (np.int32, (2, 3), 1)), ("iota", (np.float32, 4)),
        ("full", ((2, 2), 3.0, np.float32)),
    ]


@pytest.mark.parametrize("name,args", _lax_cases(), ids=[c[0] for c in _lax_cases()])
def test_lax_matches_jax(name, args):
    jax_lax = pytest.importorskip("jax.lax")
    import astjax.lax as lax
    got, want = np.asarray(getattr(lax, name)(*args)), np.asarray(getattr(jax_lax, name)(*args))
    assert got.shape == want.shape
    assert got.dtype == want.dtype or got.dtype.itemsize > want.dtype.itemsize  # JAX: no x64
    np.testing.assert_allclose(got, want, rtol=1e-6)
