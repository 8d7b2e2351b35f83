"""astjax.example_libraries.optimizers against jax.example_libraries.optimizers (the oracle):
the same parameters after several updates, for every optimizer and schedule; the state is a
pytree, so updates compile."""
import numpy as np
import pytest

import astjax
from astjax.example_libraries import optimizers

jax = pytest.importorskip("jax")
from jax.example_libraries import optimizers as joptimizers  # noqa: E402

CASES = [("sgd", (0.1,)), ("momentum", (0.1, 0.9)), ("nesterov", (0.1, 0.9)),
         ("adagrad", (0.1,)), ("rmsprop", (0.05,)), ("rmsprop_momentum", (0.05,)),
         ("adam", (0.01,)), ("adamax", (0.01,)), ("sm3", (0.1,))]


def params():
    return {"a": np.array([1.0, -2.0, 0.5]), "b": np.array([[0.3, 0.1], [-0.2, 0.7]]),
            "c": np.array(1.5)}


def grads_at(step):
    rng = np.random.default_rng(step)
    return {k: rng.normal(size=np.shape(v)) for k, v in params().items()}


@pytest.mark.parametrize("name, args", CASES, ids=[c[0] for c in CASES])
def test_updates_match_jax(name, args):
    init, update, get = getattr(optimizers, name)(*args)
    jinit, jupdate, jget = getattr(joptimizers, name)(*args)
    state = init(params())
    with jax.enable_x64(True):
        jstate = jinit(params())
    step = astjax.jit(update)
    for i in range(6):
        state = step(i, grads_at(i), state)
        with jax.enable_x64(True):
            jstate = jupdate(i, grads_at(i), jstate)
    got, want = get(state), jget(jstate)
    for key in want:
        np.testing.assert_allclose(np.asarray(got[key]), np.asarray(want[key]), rtol=1e-10,
                                   atol=1e-12)


@pytest.mark.parametrize("schedule, args", [
    ("constant", (0.1,)), ("exponential_decay", (0.1, 5, 0.5)),
    ("inverse_time_decay", (0.1, 3, 0.5)), ("inverse_time_decay", (0.1, 3, 0.5, True)),
    ("polynomial_decay", (0.1, 10, 0.01, 2.0)), ("piecewise_constant", ([3, 6], [0.1, 0.05, 0.01]))])
def test_schedules_match_jax(schedule, args):
    ours = getattr(optimizers, schedule)(*args)
    for i in range(12):
        with jax.enable_x64(True):
            want = float(getattr(joptimizers, schedule)(*args)(i))
        np.testing.assert_allclose(float(ours(i)), want, rtol=1e-12)


def test_clip_grads_and_packing_round_trip():
    g = grads_at(3)
    clipped = optimizers.clip_grads(g, 0.5)
    np.testing.assert_allclose(float(optimizers.l2_norm(clipped)), 0.5, rtol=1e-12)
    init, update, get = optimizers.adam(0.01)
    state = update(0, g, init(params()))
    again = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    for key, value in get(again).items():
        np.testing.assert_array_equal(value, get(state)[key])
