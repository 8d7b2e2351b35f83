"""pmap and collectives: named-axis vmap against explicit NumPy formulas; gradients through
collectives against central differences of the sum of every example's loss (JAX's meaning:
psum's transpose is psum); pmap on 4 XLA host devices (a subprocess, since the device count is
fixed when jaxlib starts) against pmap on one device."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError
from pmap_cases import programs
from pmap_cases.inputs import INPUTS, X2, X3, X4


def single_device(name):
    fun, args = INPUTS[name]
    out = astjax.pmap(fun(), axis_name="i", backend="numpy")(*args())
    return [np.asarray(leaf) for leaf in astjax.tree_util.tree_leaves(out)]


def test_collectives_over_a_named_vmap_axis():
    x = X3
    n = len(x)
    got = astjax.vmap(programs.collectives, axis_name="i")(x)
    want = [np.broadcast_to(x.sum(0), x.shape), np.broadcast_to((x * x).mean(0), x.shape),
            np.broadcast_to(x.max(0), x.shape), np.broadcast_to(x.min(0), x.shape),
            np.broadcast_to(x, (n,) + x.shape),                    # stacked on a new axis 0
            np.broadcast_to(x.reshape(1, -1), (n, 1, 2 * n)),       # rows side by side
            x[[2, 0, 1]],                                           # 0->1, 1->2, 2->0
            np.arange(n), np.full(n, n)]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, err_msg=f"result {k}")


def numeric_gradient(total, x, eps=1e-6):
    g = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        g[index] = (total(x + step) - total(x - step)) / (2 * eps)
    return g


def _coupled_total(x):  # the sum over examples of every example's coupled_loss
    s = (x ** 2).sum(0)
    return sum(np.sum(s * np.sin(row)) for row in x)


def _gathered_total(x):
    swapped = x[[1, 0]]
    return sum(np.sum(np.tanh(x) * row[None, :]) + np.sum(swapped[d] ** 2)
               for d, row in enumerate(x))


@pytest.mark.parametrize("name, total, x", [("grad_coupled", _coupled_total, X3),
                                            ("grad_gathered", _gathered_total, X2)])
def test_gradient_through_collectives_matches_finite_differences(name, total, x):
    (got,) = single_device(name)
    np.testing.assert_allclose(got, numeric_gradient(total, x), rtol=1e-7, atol=1e-8)


def test_axis_index_groups_act_within_each_group():
    x, groups = X4, programs.GROUPS
    group_of = [0, 1, 0, 1]
    mine = lambda f: np.stack([f(x[groups[g]]) for g in group_of])  # noqa: E731
    got = astjax.vmap(programs.grouped, axis_name="i")(x)
    want = [mine(lambda m: m.sum(0)), mine(lambda m: (m * m).mean(0)), mine(lambda m: m.max(0)),
            mine(lambda m: m.min(0)), mine(lambda m: m), mine(lambda m: m.reshape(1, -1)),
            np.full(4, 2)]
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, err_msg=f"result {k}")


def _grouped_total(x):
    total = 0.0
    for i, g in enumerate([0, 1, 0, 1]):
        members = x[programs.GROUPS[g]]
        total += np.sum((members ** 2).sum(0) * np.sin(x[i])) + np.sum(members.max(0) * x[i])
        total += np.sum(np.tanh(members) * x[i][None, :])
    return total


def test_gradient_within_groups_matches_finite_differences():
    (got,) = single_device("grad_grouped")
    np.testing.assert_allclose(got, numeric_gradient(_grouped_total, X4), rtol=1e-7, atol=1e-8)


def test_axis_index_groups_that_do_not_split_the_axis_are_refused():
    with pytest.raises(AstjaxError) as info:
        astjax.pmap(programs.bad_groups, axis_name="i")(X4)
    assert "groups of one size" in str(info.value) and "programs.py:" in str(info.value)


def test_control_flow_and_nested_named_vmap():
    (pos,) = single_device("branch_positive")
    np.testing.assert_allclose(pos, X3 * X3.sum())
    (neg,) = single_device("branch_negative")
    np.testing.assert_allclose(neg, X3)  # the total is negative: -(-x)
    (nested,) = single_device("nested_vmap")
    x = np.arange(24.0).reshape(4, 3, 2)
    centred = x - x.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(nested, np.broadcast_to(centred.sum(0), x.shape))


def test_collective_over_an_unbound_axis_names_the_line():
    with pytest.raises(AstjaxError) as info:
        astjax.pmap(programs.unbound, axis_name="i")(X3)
    message = str(info.value)
    assert "programs.py:38:12" in message and "'k'" in message


def test_pmap_under_jit_and_grad_is_a_named_vmap():
    fn = astjax.jit(lambda x: astjax.pmap(programs.coupled_loss, axis_name="i")(x).sum())
    want = sum(np.sum((X3 ** 2).sum(0) * np.sin(row)) for row in X3)
    np.testing.assert_allclose(fn(X3), want)


@pytest.fixture(scope="module")
def on_four_devices():
    pytest.importorskip("jax", reason="the XLA backend compiles through jaxlib")
    script = os.path.join(os.path.dirname(__file__), "pmap_cases", "on_xla.py")
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_pmap_on_xla_devices_matches_one_device(on_four_devices, name):
    assert on_four_devices["devices"] == 4
    got = on_four_devices[name]
    assert not isinstance(got, str), got
    want = single_device(name)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)


def test_mapped_axis_longer_than_the_devices_is_refused(on_four_devices):
    message = on_four_devices["too_many"]
    assert "5 examples but only 4 XLA devices" in message
    assert "xla_force_host_platform_device_count" in message
