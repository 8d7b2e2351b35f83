"""jax.sharding, jax.make_mesh and jax.shard_map: programs over a mesh of 4 CPU devices
computed by astjax and by JAX in one fresh process (the device count is fixed at start-up)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

HERE = os.path.dirname(os.path.abspath(__file__))


def test_shard_map_programs_compute_what_jax_computes():
    pytest.importorskip("jax")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "sharding_program.py")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = dict(line.split(" ", 1) for line in proc.stdout.strip().splitlines())
    assert set(rows) == {"normalized", "matmul", "ring", "gathered", "data_parallel_grad",
                         "per_device_grads", "psum_scatter", "all_to_all", "placed"}
    for name, row in rows.items():
        shapes_match, diff = row.split()
        assert shapes_match == "True" and float(diff) < 1e-5, (name, row)


def test_a_mesh_larger_than_the_devices_is_an_error():
    with pytest.raises(AstjaxError, match="needs 64 devices"):
        astjax.make_mesh((8, 8), ("a", "b"))


def test_one_device_mesh_and_sharding_names():
    from astjax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = astjax.make_mesh((1,), ("x",))
    assert isinstance(mesh, Mesh) and dict(mesh.shape) == {"x": 1}
    sharding = NamedSharding(mesh, P("x", None))
    assert sharding.shard_shape((4, 3)) == (4, 3) and not sharding.is_fully_replicated
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(astjax.device_put(x, sharding), x)
    np.testing.assert_allclose(astjax.lax.with_sharding_constraint(x, sharding), x)
    with mesh:  # (the mesh shard_map uses when given none)
        out = astjax.shard_map(lambda b: astjax.lax.psum(b, "x"), in_specs=P("x"),
                               out_specs=P("x"))(x)
    np.testing.assert_allclose(out, x)


def test_an_axis_the_devices_do_not_divide_is_an_error():
    from astjax.meshes import _split  # (one CPU device here: the split itself is checked)
    with pytest.raises(AstjaxError, match="cannot split an axis of 3"):
        _split(np.ones(3), ("x",), ["x"], {"x": 2})


def test_psum_scatter_and_all_to_all_under_vmap_match_loops():
    lax = astjax.lax
    x = np.arange(16.0).reshape(4, 4)
    kept = astjax.vmap(lambda b: lax.psum_scatter(b, "i"), axis_name="i")(x)
    np.testing.assert_allclose(kept, x.sum(axis=0))  # example i keeps element i of the sum
    swapped = astjax.vmap(lambda b: lax.all_to_all(b, "i", 0, 0), axis_name="i")(x)
    np.testing.assert_allclose(swapped, x.T)  # example i receives element i of every row
    with pytest.raises(AstjaxError, match="cannot be split into 4 parts"):
        astjax.vmap(lambda b: lax.psum_scatter(b, "i"), axis_name="i")(np.ones((4, 3)))
