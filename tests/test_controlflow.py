"""Python control flow on array values, converted by jit, equals eager execution.

Functions are defined in this file (astjax compiles from source). Each equality test runs
hypothesis inputs plus explicit `@example`s that pin every path: both branches of an if, while
loops running zero, one and many times. Source tests check what the conversion emits; error
tests check the error class and that the user's file:line is in the message.
"""
import copy
import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import astjax
import astjax.numpy as jnp
from astjax.errors import ControlFlowError
from corpus.checks import assert_trees_match
from corpus.registry import array, shapes

EXAMPLES = min(settings.default.max_examples, 8)
relaxed = settings(max_examples=EXAMPLES, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])

F64, F32 = np.float64, np.float32
dtypes = st.sampled_from([F64, F32])
vectors = dtypes.flatmap(lambda d: array(d, shapes(1, 1)))
matrices = dtypes.flatmap(lambda d: array(d, shapes(2, 2)))


def check(fun, *args, static_argnums=()):
    expected = fun(*copy.deepcopy(args))   # eager NumPy may update arrays in place (y += 1)
    got = astjax.jit(fun, static_argnums=static_argnums)(*args)
    assert_trees_match(got, expected)
    return expected


def vec(*values, dtype=F64):
    return np.array(values, dtype=dtype)


def line_of(fun, text: str) -> int:
    """The file line number of the first line of `fun` containing `text`."""
    lines, first = inspect.getsourcelines(fun)
    return first + next(i for i, line in enumerate(lines) if text in line)


def where(fun, text: str) -> str:
    return f"{inspect.getsourcefile(fun)}:{line_of(fun, text)}:"


# ================================================================ if / elif / else
def if_else(x):
    if x.sum() > 0:
        y = jnp.sin(x)
    else:
        y = jnp.cos(x) * 2.0
    return y


def if_elif(x):
    s = x.mean()
    if s > 1.0:
        y = x - 1.0
    elif s > 0.0:
        y = x * x
    elif s > -1.0:
        y = -x
    else:
        y = jnp.exp(x)
    return y, s


def if_no_else(x, y):
    """Only x changes, only on one path; y passes through."""
    if x.max() > 1.0:
        x = x / x.max()
    return x + y


def if_constant_outputs(x):
    """Branches produce Python constants of different kinds (weak types join)."""
    if x.sum() > 0:
        scale = 2
    else:
        scale = 0.5
    return x * scale


def if_float_constants(x):
    if x.sum() > 0:
        scale = 2.0
    else:
        scale = 0.5
    return x * scale


@relaxed
@given(vectors)
@example(vec(1.0, 2.0))
@example(vec(-1.0, -2.0, dtype=F32))
def test_if_else(x):
    check(if_else, x)


@relaxed
@given(vectors)
@example(vec(3.0, 2.0))
@example(vec(0.5, 0.25, dtype=F32))
@example(vec(-0.5, 0.0))
@example(vec(-3.0, -2.0, dtype=F32))
def test_if_elif_else(x):
    check(if_elif, x)


@relaxed
@given(dtypes.flatmap(lambda d: shapes(1, 2).flatmap(
    lambda s: st.tuples(array(d, s), array(d, s)))))
@example((vec(3.0, 0.5), vec(1.0, 1.0)))
@example((vec(0.5, 0.5), vec(1.0, 1.0)))
def test_if_without_else(xy):
    check(if_no_else, *xy)


@relaxed
@given(array(F64, shapes(1, 1)))
@example(vec(1.0))
@example(vec(-1.0))
def test_if_branches_with_python_constants(x):
    check(if_constant_outputs, x)
    check(if_float_constants, x)


@relaxed
@given(array(F32, shapes(1, 1)))
@example(vec(1.0, dtype=F32))
@example(vec(-1.0, dtype=F32))
def test_if_branches_with_python_constants_keep_float32(x):
    check(if_constant_outputs, x)
    check(if_float_constants, x)


def test_if_examples_take_every_branch():
    assert np.allclose(if_elif(vec(3.0, 2.0))[0], vec(2.0, 1.0))
    assert np.allclose(if_elif(vec(0.5, 0.25))[0], vec(0.25, 0.0625))
    assert np.allclose(if_elif(vec(-0.5, 0.0))[0], vec(0.5, 0.0))
    assert np.allclose(if_elif(vec(-3.0, -2.0))[0], np.exp(vec(-3.0, -2.0)))


# ================================================================ while
def halve(x):
    n = 0
    while jnp.sum(x * x) > 1.0:
        x = x * 0.5
        n = n + 1
    return x, n


def newton_sqrt(a):
    y = jnp.ones_like(a)
    steps = 0
    while jnp.max(jnp.abs(y * y - a)) > 1e-6 * jnp.max(a) and steps < 60:
        y = 0.5 * (y + a / y)
        steps += 1
    return y, steps


@relaxed
@given(vectors)
@example(vec(0.5, 0.5))                  # zero trips
@example(vec(1.5, dtype=F32))            # one trip
@example(vec(40.0, -30.0, 25.0))         # many trips
def test_while_zero_one_many_trips(x):
    check(halve, x)


def test_while_examples_cover_trip_counts():
    assert [halve(x)[1] for x in (vec(0.5, 0.5), vec(1.5), vec(40.0, -30.0, 25.0))] == [0, 1, 6]


@relaxed
@given(dtypes.flatmap(lambda d: array(d, shapes(1, 1), 0.5, 50.0)))
def test_while_newton(a):
    check(newton_sqrt, a)


# ================================================================ for
def scan_rows(xs):
    acc = jnp.zeros_like(xs[0])
    for row in xs:
        acc = 0.5 * acc + jnp.tanh(row)
    return acc


def unrolled(x, n):
    for i in range(n):
        x = jnp.sin(x) + x * (i + 1) / n
    return x


def nested_loops(xs):
    """for over rows, with a static inner for, and an array if in the body."""
    total = jnp.zeros_like(xs[0])
    for row in xs:
        for k in range(3):
            row = row * 0.5 + k
        if row.sum() > 5.0:
            total = total + row
        else:
            total = total - row
    return total


def while_in_for_with_if(xs):
    """A converted while (with a converted if inside) nested in a converted for."""
    out = jnp.zeros((), dtype=xs.dtype)
    for row in xs:
        v = jnp.sum(row * row) + 1.0
        while v > 2.0:
            if v > 10.0:
                v = v / 4.0
            else:
                v = v - 1.0
        out = out + v
    return out


@relaxed
@given(matrices)
def test_for_over_array(xs):
    check(scan_rows, xs)


@relaxed
@given(vectors, st.integers(0, 4))
def test_for_range_static(x, n):
    check(unrolled, x, n, static_argnums=(1,))


@relaxed
@given(matrices)
@example(vec(4.0, 4.0)[None])
@example(vec(-4.0, 4.0)[None])
def test_nested_loops_and_branches(xs):
    check(nested_loops, xs)


@relaxed
@given(matrices)
@example(np.array([[0.1, 0.2], [3.0, 2.0]]))
def test_while_in_for_with_if(xs):
    check(while_in_for_with_if, xs)


# ================================================================ and / or / not, chains
def logic_if(x, y):
    if x.sum() > 0 and not y.sum() > 0:
        r = x - y
    elif x.mean() < y.mean() or 0.5 < x.max() <= 2.0:
        r = x * y
    else:
        r = x + y
    return r


def logic_while(x):
    i = 0
    while i < 8 and not (jnp.sum(x) > 4.0 or jnp.sum(x) < -4.0):
        x = x * 1.5 + 0.1
        i = i + 1
    return x, i


def chained_range(x):
    if -1.0 <= x.mean() < 1.0 < x.max():
        x = x * 10.0
    return x


@relaxed
@given(dtypes.flatmap(lambda d: shapes(1, 1).flatmap(
    lambda s: st.tuples(array(d, s), array(d, s)))))
@example((vec(1.0), vec(-1.0)))           # and-not
@example((vec(-1.0), vec(1.0)))           # or, left
@example((vec(1.5), vec(1.0)))            # or, chained right
@example((vec(3.0), vec(1.0)))            # else
def test_and_or_not_in_if(xy):
    check(logic_if, *xy)


@relaxed
@given(vectors)
@example(vec(5.0))
@example(vec(0.0, 0.0))
def test_and_or_not_in_while(x):
    check(logic_while, x)


@relaxed
@given(vectors)
@example(vec(-0.5, 1.5))
@example(vec(0.0, 0.5))
def test_chained_comparison(x):
    check(chained_range, x)


# ================================================================ Python scalars in the carry
def int_accumulates_floats(xs):
    total = 0
    count = 0
    for row in xs:
        total = total + row.sum()
        count += 1
    return total, count


def float_accumulates_in_while(x):
    acc = 0.0
    k = 0
    while acc < 3.0 and k < 20:
        acc = acc + jnp.abs(x).sum() + 0.5
        k = k + 1
    return acc, k


@relaxed
@given(matrices)
def test_python_int_carry_takes_the_eager_dtype(xs):
    expected = check(int_accumulates_floats, xs)
    assert np.asarray(expected[0]).dtype == xs.dtype


@relaxed
@given(vectors)
def test_python_float_carry_in_while(x):
    check(float_accumulates_in_while, x)


# ================================================================ containers in the carry
def list_item_in_scan(xs):
    out = [xs[0]]
    for row in xs:
        out[0] = out[0] + row
    return out[0]


def dict_item_in_while(x):
    d = {"a": x, "n": 0}
    while d["a"].sum() < 10.0:
        d["a"] = d["a"] + 1.0
        d["n"] = d["n"] + 1
    return d


def list_item_in_if(x):
    out = [x, x]
    if x.sum() > 0:
        out[0] = x * 2.0
    return out


def dict_item_in_if(x):
    d = {"a": x}
    if x.sum() > 0:
        d["a"] = x * 2.0
    else:
        d["a"] = x - 1.0
    return d["a"]


def dict_keys_differ_in_if(x):
    d = {"a": x}
    if x.sum() > 0:
        d["a"] = x * 2.0
    else:
        d["b"] = x
    return d["a"]


def test_branches_giving_a_dict_different_keys_is_a_clear_error():
    with pytest.raises(ControlFlowError, match="different structures") as info:
        astjax.jit(dict_keys_differ_in_if)(vec(1.0, 2.0))
    assert "test_controlflow.py:" in str(info.value)


@relaxed
@given(matrices)
def test_list_item_updated_in_converted_for(xs):
    check(list_item_in_scan, xs)


@relaxed
@given(vectors)
@example(vec(20.0))
def test_dict_items_updated_in_converted_while(x):
    check(dict_item_in_while, x)


@pytest.mark.parametrize("fun", [list_item_in_if, dict_item_in_if])
def test_container_item_updated_in_converted_if(fun):
    for x in (vec(1.0, 2.0), vec(-1.0, -2.0)):
        check(fun, x)


# ================================================================ generated source
def static_ndim(x):
    if x.ndim == 2:
        x = x.sum(axis=1)
    return x * 2.0


def test_source_if_becomes_cond():
    f = astjax.jit(if_else)
    f(vec(1.0, 2.0))
    line = line_of(if_else, "if x.sum() > 0:")
    assert "lax.cond(" in f.source
    assert f"def then_{line}(" in f.source and f"def else_{line}(" in f.source, f.source


def test_source_static_if_is_specialised_away():
    f = astjax.jit(static_ndim)
    for x in (np.ones((2, 3)), np.ones(3)):
        f(x)
        assert "cond" not in f.source, f.source
        np.testing.assert_array_equal(f(x), static_ndim(x))


def test_source_while_becomes_while_loop():
    f = astjax.jit(halve)
    f(vec(3.0))
    assert "lax.while_loop(" in f.source, f.source


def test_source_compiles():
    for fun, args in [(if_elif, (vec(1.0),)), (nested_loops, (np.ones((2, 2)),)),
                      (logic_while, (vec(1.0),))]:
        f = astjax.jit(fun)
        f(*args)
        compile(f.source, fun.__name__, "exec")


# ================================================================ errors
def vector_condition(x):
    if x > 0:
        x = x * 2.0
    return x


def defined_in_one_branch(x):
    if x.sum() > 0:
        only_here = x * 2.0
    return only_here + 1.0


def growing_carry(x):
    while x.sum() < 100.0:
        x = jnp.concatenate([x, x])
    return x


def growing_scan(xs):
    acc = xs[0]
    for row in xs:
        acc = jnp.concatenate([acc, row])
    return acc


def test_error_non_scalar_condition():
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(vector_condition)(vec(1.0, -1.0, 2.0))
    message = str(info.value)
    assert where(vector_condition, "if x > 0:") in message, message
    assert "(3,)" in message
    assert "jnp.where" in message and "any" in message and "all" in message


def _vector_if_helper(v):
    if v > 0:
        v = v * 2.0
    return v


def vector_condition_in_helper(x):
    return _vector_if_helper(x) + 1.0


def vector_condition_in_scan(xs):
    acc = xs[0]
    for row in xs:
        if row > 0:
            acc = acc + row
    return acc


def vector_while_condition(x):
    while x < 10.0:
        x = x + 1.0
    return x


def loop_changes_dtype(x):
    i = jnp.zeros((), jnp.int32)
    while i < 3:
        i = i + 0.5
    return i


@pytest.mark.parametrize("fun, where_fun, text, arg", [
    (vector_condition_in_helper, _vector_if_helper, "if v > 0:", vec(1.0, 2.0)),
    (vector_condition_in_scan, vector_condition_in_scan, "if row > 0:", np.ones((2, 2))),
    (vector_while_condition, vector_while_condition, "while x < 10.0:", vec(1.0, 2.0)),
], ids=["helper", "inside-for", "while"])
def test_error_non_scalar_condition_elsewhere(fun, where_fun, text, arg):
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(fun)(arg)
    assert where(where_fun, text) in str(info.value), str(info.value)


def test_error_loop_changes_dtype():
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(loop_changes_dtype)(vec(1.0))
    message = str(info.value)
    assert "'i'" in message and "int32" in message and "float64" in message, message
    assert where(loop_changes_dtype, "while i < 3:") in message or \
        where(loop_changes_dtype, "i = i + 0.5") in message, message


def test_error_variable_defined_in_one_branch():
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(defined_in_one_branch)(vec(1.0, 2.0))
    message = str(info.value)
    assert "only_here" in message
    lines = [where(defined_in_one_branch, t) for t in ("if x.sum() > 0:", "return only_here")]
    assert any(w in message for w in lines), message


@pytest.mark.parametrize("fun, arg, header, update", [
    (growing_carry, vec(1.0, 1.0), "while x.sum()", "x = jnp.concatenate"),
    (growing_scan, np.ones((3, 2)), "for row in xs:", "acc = jnp.concatenate"),
], ids=["while", "for"])
def test_error_carry_changes_shape(fun, arg, header, update):
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(fun)(arg)
    message = str(info.value)
    name = update.split()[0]
    assert repr(name) in message and "(2,)" in message and "(4,)" in message, message
    assert where(fun, header) in message or where(fun, update) in message, message


# ================================================================ break / continue / return


def while_break(x):
    while x.sum() < 10.0:
        x = x + 1.0
        if x.max() > 3.0:
            break
    return x


def for_break(xs):
    total = jnp.zeros_like(xs[0])
    for row in xs:
        if row.sum() < 0:
            break
        total = total + row
    return total


def for_continue(xs):
    total = jnp.zeros_like(xs[0])
    for row in xs:
        if row.sum() < 0:
            continue
        total = total + row * row
    return total


def while_continue(x):
    i = 0
    acc = jnp.zeros_like(x)
    while i < 5:
        i = i + 1
        if x.sum() * i > 4.0:
            continue
        acc = acc + x * i
    return acc


def while_return(x):
    while x.sum() < 10.0:
        if x.max() > 3.0:
            return -x
        x = x + 1.0
    return x


def for_return(xs):
    total = jnp.zeros_like(xs[0])
    for row in xs:
        if row.sum() > 2.0:
            return total * 0.0 + row
        total = total + row
    return total


def if_return(x):
    if x.sum() > 0:
        return x * 2.0
    return x - 1.0


@relaxed
@given(vectors)
@example(vec(0.0, 0.0))        # breaks after 4 trips
@example(vec(5.0, 6.0))        # no trip
@example(vec(2.0, 2.0))        # stops by its condition... or breaks at once
def test_while_break(x):
    check(while_break, x)


@relaxed
@given(matrices)
@example(np.array([[1.0, 2.0], [-5.0, 1.0], [1.0, 1.0]]))   # breaks at row 1
@example(np.array([[1.0, 2.0], [1.0, 1.0]]))                # never breaks
def test_for_break(xs):
    check(for_break, xs)


@relaxed
@given(matrices)
@example(np.array([[1.0, 2.0], [-5.0, 1.0], [1.0, 1.0]]))
@example(np.array([[1.0, 2.0], [1.0, 1.0]]))
def test_for_continue(xs):
    check(for_continue, xs)


@relaxed
@given(vectors)
@example(vec(2.0))             # continues from i == 3 on
@example(vec(-1.0))            # never continues
def test_while_continue(x):
    check(while_continue, x)


@relaxed
@given(vectors)
@example(vec(0.0, 0.0))        # returns from inside the loop
@example(vec(5.0, 6.0))        # returns after the loop (no trip)
@example(vec(2.5, 2.5))        # one trip, then the loop condition ends it
def test_while_return(x):
    check(while_return, x)


@relaxed
@given(matrices)
@example(np.array([[0.0, 0.5], [2.0, 1.0], [1.0, 1.0]]))   # returns at row 1
@example(np.array([[0.0, 0.5], [0.5, 0.5]]))               # returns after the loop
def test_for_return(xs):
    check(for_return, xs)


@relaxed
@given(vectors)
@example(vec(1.0))
@example(vec(-1.0))
def test_if_return(x):
    check(if_return, x)


def assigned_on_one_path(x):
    if x.sum() > 0:
        y = x * 2
    return y


def test_a_value_assigned_on_some_paths_is_reported_at_its_use_naming_the_if():
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(assigned_on_one_path)(np.ones(3))
    err = info.value
    if_line = assigned_on_one_path.__code__.co_firstlineno + 1
    assert err.loc.line == if_line + 2 and f"at line {if_line}" in str(err)
    assert "return y" in str(err)


def grows_in_loop(x):
    total = jnp.zeros(2)
    for row in x:
        total = total + row.sum()
        total = jnp.concatenate([total, row])
    return total


def widens_in_while(x, n):
    i = 0
    acc = jnp.zeros(3, dtype=jnp.int32)
    while i < n:
        acc = acc + x
        i = i + 1
    return acc


@pytest.mark.parametrize("fn, args, what, at, loop", [
    (grows_in_loop, (np.ones((3, 2)),), "shape of 'total'", 4, 2),
    (widens_in_while, (np.ones(3), np.int64(4)), "dtype of 'acc'", 4, 3)])
def test_a_carried_value_that_changes_is_reported_at_its_assignment(fn, args, what, at, loop):
    """At the assignment that changes it (lines counted from the def), naming the loop."""
    with pytest.raises(ControlFlowError) as info:
        astjax.jit(fn)(*args)
    first = fn.__code__.co_firstlineno
    assert what in str(info.value)
    assert info.value.loc.line == first + at
    assert f"in the loop at line {first + loop}" in str(info.value)


def test_a_while_loop_past_its_threads_deadline_raises_out_of_time():
    import threading
    from astjax.core.prims.control import OutOfTime, deadline, while_impl, while_taped_impl

    def forever(body=lambda i: i + 1):
        return while_impl(lambda i: True, body, 0)
    with pytest.raises(OutOfTime), deadline(0.0):
        forever()
    with pytest.raises(OutOfTime), deadline(0.0):
        while_taped_impl(lambda i: True, lambda i: i + 1, 0)
    assert while_impl(lambda i: i < 5, lambda i: i + 1, 0) == 5  # (no deadline outside)
    with deadline(60.0):
        with pytest.raises(OutOfTime), deadline(0.0):
            forever()
        assert while_impl(lambda i: i < 5, lambda i: i + 1, 0) == 5  # (the outer one is back)
        other = []
        thread = threading.Thread(target=lambda: other.append(
            while_impl(lambda i: i < 10_000, lambda i: i + 1, 0)))
        with deadline(0.0):  # (another thread's loops keep no deadline of this one's)
            thread.start()
            thread.join()
        assert other == [10_000]
    ended = threading.Event()
    with deadline(until=ended):  # (no time limit: until the event is set)
        assert while_impl(lambda i: i < 10_000, lambda i: i + 1, 0) == 10_000
        ended.set()
        with pytest.raises(OutOfTime):
            forever()
