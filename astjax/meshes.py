"""`jax.shard_map` and `jax.make_mesh`: a function of per-device blocks, run over a mesh.

shard_map(f, mesh=..., in_specs=..., out_specs=...) splits each argument into the blocks its
`in_specs` give each device, runs `f` on every device's blocks, with collectives over the mesh
axes (`lax.psum(x, "data")`, `all_gather`, `ppermute`, `axis_index`), and joins the results as
`out_specs` say. That is a vmap per mesh axis, named after it: the split blocks are stacked
along one leading axis per mesh axis (in the mesh's order), the vmaps map them, and the
results' leading axes are joined back into the axes their specs name. All of it runs as one
compiled function on the host, so astjax needs no devices for it (`make_mesh` uses jaxlib's
CPU devices, more with `XLA_FLAGS=--xla_force_host_platform_device_count=N`, as JAX does).
"""
import functools
import math

import numpy as np

from .batching import vmap
from .core.axes import replicated_gradients
from .errors import TransformError
from .sharding import Mesh, PartitionSpec, get_mesh, mesh_axes
from .tree_util import tree_flatten, tree_structure, tree_unflatten


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of the first prod(axis_shapes) devices, shaped `axis_shapes`."""
    if devices is None:  # (jaxlib's CPU devices, as astjax.devices() lists them)
        from .backends.xla import client
        devices = client.devices()
    count = math.prod(axis_shapes)
    if count > len(devices):
        raise TransformError(f"a mesh of shape {tuple(axis_shapes)} needs {count} devices, and "
                             f"there are {len(devices)}",
                             hint="run with XLA_FLAGS=--xla_force_host_platform_device_count="
                                  f"{count} for that many CPU devices")
    grid = np.empty(count, dtype=object)
    grid[:] = list(devices)[:count]
    return Mesh(grid.reshape(tuple(axis_shapes)), tuple(axis_names), axis_types)


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(),
              check_vma=True, check_rep=True):
    """f run on each device's blocks of its arguments (see the module docstring). Without
    `in_specs`, every argument is whole on every device (PartitionSpec())."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                 axis_names=axis_names, check_vma=check_vma, check_rep=check_rep)
    return ShardMapped(f, mesh, in_specs, out_specs, check_vma and check_rep)


class ShardMapped:
    """`check_vma`: JAX's typing of values over the mesh, under which the gradient of a value
    replicated over an axis is summed over it (see `core/axes.replicated_gradients`)."""

    def __init__(self, f, mesh, in_specs, out_specs, check_vma=True):
        self.f, self.mesh, self.in_specs, self.out_specs = f, mesh, in_specs, out_specs
        self.check_vma = check_vma
        functools.update_wrapper(self, f, updated=())

    def __call__(self, *args):
        mesh = self.mesh if self.mesh is not None else get_mesh()
        if mesh is None:
            raise TransformError("shard_map needs a mesh", hint="pass mesh=jax.make_mesh(...), "
                                 "or call it inside `with jax.sharding.use_mesh(mesh):`")
        axes, sizes = list(mesh.axis_names), dict(mesh.shape)
        in_specs = PartitionSpec() if self.in_specs is None else self.in_specs
        leaves, tree = tree_flatten(args)
        specs = _per_leaf(in_specs, args, "in_specs")
        blocks = [_split(x, spec, axes, sizes) for x, spec in zip(leaves, specs)]
        holds = [{a for part in spec for a in mesh_axes(part)} for spec in specs]
        out_tree = []

        def on_device(*device_blocks):
            out = self.f(*tree_unflatten(tree, list(device_blocks)))
            out_tree.append(tree_structure(out))
            return tuple(tree_flatten(out)[0])

        mapped = on_device
        for axis in reversed(axes):  # (the first mesh axis is the outermost map)
            mapped = vmap(mapped, in_axes=tuple(0 if axis in h else None for h in holds),
                          axis_name=axis, axis_size=sizes[axis])
        with replicated_gradients(tuple(axes) if self.check_vma else ()):
            outs = mapped(*blocks)
        result = tree_unflatten(out_tree[-1], list(outs))
        out_specs = _per_leaf(self.out_specs, result, "out_specs")
        joined = [_join(x, spec, axes, sizes) for x, spec in zip(outs, out_specs)]
        return tree_unflatten(out_tree[-1], joined)


def _per_leaf(specs, tree, what: str) -> list:
    """One PartitionSpec per leaf of `tree`: `specs` is a spec or a pytree prefix of them."""
    if isinstance(specs, PartitionSpec):
        return [specs] * tree_structure(tree).num_leaves
    spec_leaves, spec_tree = tree_flatten(specs, is_leaf=lambda s: isinstance(s, PartitionSpec))
    if spec_tree == tree_structure(tree):
        return spec_leaves
    from .tree_util import tree_map
    out = []
    try:
        tree_map(lambda spec, sub: out.extend([spec] * tree_structure(sub).num_leaves), specs,
                 tree, is_leaf=lambda s: isinstance(s, PartitionSpec))
    except Exception:
        raise TransformError(f"shard_map's {what} do not match its arguments' structure",
                             hint="give one PartitionSpec per argument (or for all)") from None
    return out


def _split(x, spec, axes, sizes):
    """x's blocks stacked along one leading axis per mesh axis its spec names (mesh order):
    a dim split over mesh axes (a, b) is reshaped into (size a, size b, block)."""
    import astjax.numpy as jnp
    x = jnp.asarray(x)
    shape, parts = tuple(x.shape), tuple(spec) + (None,) * (x.ndim - len(spec))
    if len(spec) > x.ndim:
        raise TransformError(f"shard_map's spec {spec} has more entries than the argument's "
                             f"{x.ndim} axes")
    wide, position = [], {}
    for d, part in zip(shape, parts):
        names = mesh_axes(part)
        count = math.prod(sizes[n] for n in names)
        if d % count:
            raise TransformError(f"shard_map cannot split an axis of {d} over mesh axes "
                                 f"{names} ({count} devices)",
                                 hint="make the axis a multiple of the devices it is split over")
        for n in names:
            position[n] = len(wide)
            wide.append(sizes[n])
        wide.append(d // count)
    x = jnp.reshape(x, tuple(wide))
    front = [position[a] for a in axes if a in position]
    rest = [i for i in range(len(wide)) if i not in front]
    return jnp.transpose(x, front + rest)


def _join(x, spec, axes, sizes):
    """The inverse of `_split` for a result with a leading axis per mesh axis: an axis its
    spec does not name is replicated (its first copy is kept)."""
    import astjax.numpy as jnp
    named = {a for part in spec for a in mesh_axes(part)}
    x = x[tuple(slice(None) if a in named else 0 for a in axes)]
    lead = [a for a in axes if a in named]
    block_ndim = x.ndim - len(lead)
    parts = tuple(spec) + (None,) * (block_ndim - len(spec))
    order, merged = [], []
    for d, part in enumerate(parts):
        names = mesh_axes(part)
        order += [lead.index(n) for n in names] + [len(lead) + d]
        merged.append(math.prod(sizes[n] for n in names) * x.shape[len(lead) + d])
    return jnp.reshape(jnp.transpose(x, order), tuple(merged))
