"""Devices: the XLA backend's (host CPU devices, more with
`XLA_FLAGS=--xla_force_host_platform_device_count=N`), and helpers that JAX programs call on
arrays. The NumPy and Numba backends compute on the host, in the caller's arrays."""
import numpy as np

from .core.array import as_array
from .core.hooks import provide
from .tree_util import tree_map


def devices(backend=None) -> list:
    """The XLA devices (jaxlib's CPU devices)."""
    from .backends.xla import client
    return client.devices()


def local_devices(backend=None) -> list:
    return devices(backend)


def device_count(backend=None) -> int:
    """The devices of every process of the job (`local_device_count()` on one process)."""
    from .core import processes
    return len(devices(backend)) * processes.count()


def local_device_count(backend=None) -> int:
    return len(devices(backend))


def device_put(x, device=None):
    """x as astjax arrays (host arrays: every backend reads them without a copy)."""
    return tree_map(lambda leaf: as_array(np.asarray(leaf)), x)


def device_get(x):
    """x with every array as a NumPy array on the host (JAX's transfer back; here a view)."""
    return tree_map(lambda leaf: np.asarray(leaf) if hasattr(leaf, "__array__") else leaf, x)


def block_until_ready(x):
    """x, once every array in it is computed (astjax's results are, when returned)."""
    return tree_map(lambda leaf: leaf.block_until_ready() if hasattr(leaf, "block_until_ready")
                    else leaf, x)


def default_backend() -> str:
    """The platform arrays are computed on: the host CPU, whichever backend compiles."""
    return "cpu"


provide("devices", devices)  # (for an array's own `devices()` and `sharding`, in the core)


def __getattr__(name: str):
    if name == "Device":  # jaxlib's device type (isinstance checks and annotations)
        return type(devices()[0])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
