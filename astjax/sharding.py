"""jax.sharding's names: meshes of devices with named axes, and how an array is laid out
over them (`NamedSharding(mesh, PartitionSpec(...))`).

astjax computes every array in the host's memory, so a sharding places nothing: it records
intent, and `shard_map` (astjax/meshes.py) reads a mesh's axis names and sizes to split its
arguments into the blocks each device would hold. Placing an array with a sharding
(`device_put`) returns its values unchanged.
"""
import contextlib
import enum
import math
from collections import OrderedDict

import numpy as np

from .core.placement import Sharding, SingleDeviceSharding
from .errors import TransformError


class PartitionSpec(tuple):
    """Per array axis, the mesh axis (or tuple of mesh axes, or None) it is split over."""

    def __new__(cls, *partitions):
        return super().__new__(cls, partitions)

    def __repr__(self):
        return f"PartitionSpec{tuple.__repr__(self)}"


P = PartitionSpec  # (also jax.P)


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


class Mesh:
    """Devices arranged in an array whose axes have names (`Mesh(devices, ("data",))`). As a
    context manager it is the mesh `shard_map` uses when given none."""

    def __init__(self, devices, axis_names, axis_types=None):
        self.devices = np.asarray(devices, dtype=object)
        self.axis_names = tuple(axis_names) if not isinstance(axis_names, str) else (axis_names,)
        if self.devices.ndim != len(self.axis_names):
            raise TransformError(f"a mesh of {self.devices.ndim} axes needs as many names, got "
                                 f"{self.axis_names}")
        self.axis_types = axis_types

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple:
        return tuple(self.devices.shape)

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def device_ids(self):
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    def __enter__(self):
        _meshes.append(self)
        return self

    def __exit__(self, *exc):
        _meshes.pop()

    def __repr__(self):
        axes = ", ".join(f"'{n}': {s}" for n, s in self.shape.items())
        return f"Mesh({axes})"


AbstractMesh = Mesh
_meshes: list = []


def get_mesh():
    """The mesh of the innermost `with mesh:` / `set_mesh` (None outside any)."""
    return _meshes[-1] if _meshes else None


get_abstract_mesh = get_mesh


@contextlib.contextmanager
def use_mesh(mesh: Mesh):
    with mesh:
        yield mesh


def set_mesh(mesh: Mesh):
    """Make `mesh` the current one (as a context manager: for the block only)."""
    _meshes.append(mesh)

    class _Restore:
        def __enter__(self):
            return mesh

        def __exit__(self, *exc):
            if _meshes and _meshes[-1] is mesh:
                _meshes.pop()
    return _Restore()


class NamedSharding(Sharding):
    def __init__(self, mesh: Mesh, spec=PartitionSpec(), *, memory_kind=None):
        self.mesh, self.spec, self.memory_kind = mesh, PartitionSpec(*spec), memory_kind

    def _devices(self):
        return list(self.mesh.devices.flat)

    @property
    def is_fully_replicated(self) -> bool:
        return all(part is None for part in self.spec)

    def shard_shape(self, global_shape) -> tuple:
        sizes = self.mesh.shape
        return tuple(d // math.prod(sizes[n] for n in mesh_axes(part))
                     for d, part in zip(global_shape, tuple(self.spec) + (None,) * len(global_shape)))

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"


def mesh_axes(part) -> tuple:
    """The mesh axes one entry of a PartitionSpec names (none for None)."""
    if part is None:
        return ()
    return tuple(part) if isinstance(part, (tuple, list)) else (part,)


def make_single_device_sharding(device):
    return SingleDeviceSharding(device)


def reshard(x, out_shardings):
    """x laid out as `out_shardings` says: its values, unchanged."""
    return x


__all__ = ["AbstractMesh", "AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding",
           "SingleDeviceSharding", "get_abstract_mesh", "get_mesh", "make_single_device_sharding",
           "reshard", "set_mesh", "use_mesh"]
