"""x[index] and x.at[index] against NumPy (reads, and NumPy's in-place assignment / ufunc.at for
updates), eagerly and compiled by hand on abstract Vars; abstract scalar indices; errors."""
import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import astjax.numpy as jnp
from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.bind import Builder, building
from astjax.core.ir import Var
from astjax.errors import ConcretizationError, DtypeError, ShapeError


def compiled(fn, *args):
    """fn run on abstract Vars shaped like args; its equations evaluated on args' values."""
    params = [Var(AVal(np.shape(a), np.asarray(a).dtype)) for a in args]
    builder = Builder()
    with building(builder):
        out = fn(*params)
    env = {v.id: np.asarray(a) for v, a in zip(params, args)}
    for eqn in builder.eqns:
        ins = [env[a.id] if isinstance(a, Var) else a.value for a in eqn.ins]
        value = np.asarray(primitives.get(eqn.prim).impl(*ins, **eqn.params))
        assert (value.shape, value.dtype) == (eqn.outs[0].shape, eqn.outs[0].dtype), eqn.prim
        env[eqn.outs[0].id] = value
    assert isinstance(out, Var)
    return out, env[out.id]


def check(fn, expected, *args):
    """fn(*args) equals expected eagerly, and compiled (aval and value)."""
    eager = np.asarray(fn(*args))
    assert (eager.shape, eager.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_array_equal(eager, expected)
    out, value = compiled(fn, *args)
    assert (out.shape, out.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_array_equal(value, expected)


# ---------------------------------------------------------------- index strategies
def slices(n):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
    return st.builds(slice, bound, bound, step)


def basic_entry(n):
    return st.one_of(slices(n), st.integers(-n, n - 1) if n else slices(n))


@st.composite
def basic_index(draw, shape):
    consumed = draw(st.integers(0, len(shape)))
    entries = [draw(basic_entry(n)) for n in shape[:consumed]]
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    if draw(st.booleans()):  # `...` anywhere only when every dim is indexed: else it shifts them
        anywhere = consumed == len(shape)
        entries.insert(draw(st.integers(0, len(entries))) if anywhere else len(entries), Ellipsis)
    return tuple(entries)


@st.composite
def advanced_index(draw, shape):
    """A mix of slices/ints/None and 1-3 integer arrays broadcast together."""
    count = draw(st.integers(1, min(3, len(shape))))
    array_dims = sorted(draw(st.lists(st.integers(0, len(shape) - 1), min_size=count,
                                      max_size=count, unique=True)))
    index_shape = draw(st.sampled_from([(), (2,), (3,), (2, 1), (1, 3)]))
    entries = []
    for d, n in enumerate(shape):
        if d in array_dims:
            entries.append(draw(hnp.arrays(np.int64, draw(st.sampled_from([index_shape, (1,)])),
                                           elements=st.integers(-n, n - 1))))
        else:
            entries.append(draw(basic_entry(n)))
    if draw(st.booleans()):
        entries.insert(draw(st.integers(0, len(entries))), None)
    return tuple(entries)


SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


# ---------------------------------------------------------------- reading
@settings(max_examples=50, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_basic_indexing_matches_numpy(data, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    index = data.draw(basic_index(shape))
    check(lambda a: a[index], x[index], x)
    check(lambda a: jnp.getitem(a, index), x[index], x)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_advanced_indexing_matches_numpy(data, shape):
    x = np.arange(np.prod(shape)).reshape(shape)
    index = data.draw(advanced_index(shape))
    check(lambda a: a[index], x[index], x)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_abstract_index_arrays_match_numpy(data, shape):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    index = data.draw(hnp.arrays(np.int32, (2, 2), elements=st.integers(-shape[0], shape[0] - 1)))
    check(lambda a, i: a[i], x[index], x, index)
    if x.ndim > 1:
        last = np.clip(index, -shape[-1], shape[-1] - 1).astype(np.int32)
        check(lambda a, i: a[..., 0:1, i], x[..., 0:1, last], x, last)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_abstract_scalar_indices_match_numpy(data, shape):
    """A loop counter as an index: x[i], x[i, 1:], x[:, j] with i, j Vars of shape ()."""
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    i = np.int64(data.draw(st.integers(-shape[0], shape[0] - 1)))
    check(lambda a, k: a[k], x[i], x, i)
    check(lambda a, k: a[k, None], x[i, None], x, i)
    if x.ndim > 1:
        j = np.int32(data.draw(st.integers(-shape[1], shape[1] - 1)))
        check(lambda a, k, m: a[k, m], x[i, j], x, i, j)
        check(lambda a, m: a[:, m], x[:, j], x, j)
        check(lambda a, k: a[k, ::-1], x[i, ::-1], x, i)


def test_static_boolean_masks():
    x = np.arange(12.0).reshape(3, 4)
    check(lambda a: a[x > 4], x[x > 4], x)
    row_mask = np.array([True, False, True])
    check(lambda a: a[row_mask, 1:], x[row_mask, 1:], x)
    check(lambda a: a[:, [True, False, False, True]], x[:, [True, False, False, True]], x)


def test_errors():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ConcretizationError, match="jnp.where"):
        compiled(lambda a: a[a > 2], x)
    with pytest.raises(ConcretizationError, match="static"):
        compiled(lambda a, i: a[i:], x, np.int64(1))
    with pytest.raises(ShapeError, match="too many indices"):
        jnp.getitem(x, (0, 0, 0))
    np.testing.assert_array_equal(jnp.getitem(x, 5), x[1])  # clamps, as JAX reads
    with pytest.raises(DtypeError, match="integers"):
        compiled(lambda a, f: a[f], x, np.float64(1.0))
    with pytest.raises(ShapeError, match="mask"):
        jnp.getitem(x, np.array([True, False, True]))


# ---------------------------------------------------------------- updates
def numpy_update(x, index, values, mode):
    out = x.copy()
    if mode == "set":
        out[index] = values
        return out
    ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[mode]
    positions = np.arange(x.size).reshape(x.shape)[index]
    ufunc.at(out.reshape(-1), positions.reshape(-1),
             np.broadcast_to(values, positions.shape).reshape(-1).astype(x.dtype))
    return out


MODES = ["set", "add", "multiply", "min", "max"]


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_at_updates_with_basic_indices(mode, data, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    index = data.draw(basic_index(shape))
    values = np.float32(data.draw(st.integers(-9, 9)))
    expected = numpy_update(x, index, values, mode)
    check(lambda a: getattr(jnp.at(a)[index], mode)(values), expected, x)
    check(lambda a: getattr(jnp.at(a)[index], mode)(2.5), numpy_update(x, index, 2.5, mode), x)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_at_updates_with_index_arrays(mode, data, shape):
    """Repeated indices accumulate (add/multiply/min/max), as in JAX and NumPy's ufunc.at."""
    x = np.arange(np.prod(shape), dtype=np.int64).reshape(shape)
    index = data.draw(advanced_index(shape))
    if mode == "set":  # NumPy's last-write-wins with repeats is not a contract: keep them unique
        positions = np.arange(x.size).reshape(shape)[index].ravel()
        if len(set(positions)) != len(positions):
            return
    values = np.arange(np.asarray(x[index]).size).reshape(np.shape(x[index])) - 3
    check(lambda a, v: getattr(jnp.at(a)[index], mode)(v), numpy_update(x, index, values, mode), x,
          values)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_at_with_abstract_scalar_index(data, shape):
    x = np.zeros(shape, np.float64)
    i = np.int64(data.draw(st.integers(-shape[0], shape[0] - 1)))
    row = np.arange(np.prod(shape[1:]), dtype=np.float64).reshape(shape[1:])
    check(lambda a, k, r: jnp.at(a)[k].set(r), numpy_update(x, i, row, "set"), x, i, row)
    check(lambda a, k: jnp.at(a)[k].add(1.0), numpy_update(x, i, 1.0, "add"), x, i)
    if x.ndim > 1:
        expected = numpy_update(x, (i, slice(1, None)), 2, "add")
        check(lambda a, k: jnp.at(a)[k, 1:].add(2), expected, x, i)
        idx = np.array([0, shape[1] - 1, 0])
        check(lambda a, k, j: jnp.at(a)[k, j].add(1.0), numpy_update(x, (i, idx), 1.0, "add"), x, i,
              idx)


def test_at_casts_values_to_the_array_dtype_and_get_divide_power():
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    check(lambda a: jnp.at(a)[0].set(2.7), numpy_update(x, 0, 2.7, "set"), x)
    check(lambda a: jnp.at(a)[:, 1].get(), x[:, 1], x)
    f = x.astype(np.float32)
    check(lambda a: jnp.at(a)[1].divide(2), numpy_update(f, 1, f[1] / 2, "set"), f)
    check(lambda a: jnp.at(a)[1, ::2].power(2), numpy_update(f, (1, slice(None, None, 2)),
                                                       f[1, ::2] ** 2, "set"), f)


def test_abstract_arrays_have_the_at_property():
    x = np.arange(6.0).reshape(2, 3)
    out, value = compiled(lambda a, i: a.at[i, 1:].add(10.0).at[0].get(), x, np.int64(-1))
    expected = numpy_update(x, (-1, slice(1, None)), 10.0, "add")[0]
    assert (out.shape, out.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_array_equal(value, expected)
