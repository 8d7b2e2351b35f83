"""Where an array lives, as JAX programs ask (`x.sharding`, `x.devices()`): astjax's arrays
are host memory, on jaxlib's first CPU device. The mesh-based shardings are in
astjax/sharding.py."""
import sys


class Sharding:
    """How an array is laid out over devices (recorded: astjax's arrays live on the host)."""

    @property
    def device_set(self) -> set:
        return set(self._devices())

    def _devices(self):
        return []

    @property
    def is_fully_replicated(self) -> bool:
        return True


class SingleDeviceSharding(Sharding):
    def __init__(self, device, *, memory_kind=None):
        self.device, self.memory_kind = device, memory_kind

    def _devices(self):
        return [self.device]

    def __repr__(self):
        return f"SingleDeviceSharding(device={self.device!r})"


class Shard:
    """One device's part of an array (here the whole array, on the host)."""

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data


def host_device():
    """jaxlib's first CPU device (the API layer provides the devices, see astjax/devices.py)."""
    from .hooks import transformation
    return transformation("devices")()[0]


def host_sharding():
    """An astjax array's sharding. Where JAX itself is imported, JAX's own single-device
    sharding of its first CPU device: JAX reads `x.sharding` of every argument (an astjax
    array is a NumPy array to it), and took astjax's for one of its own, so `jax_array -
    astjax_array` failed inside JAX."""
    jax = sys.modules.get("jax")
    if getattr(jax, "__name__", None) == "jax":  # (not astjax standing in for it)
        try:
            return jax.sharding.SingleDeviceSharding(jax.devices("cpu")[0])
        except Exception:  # (a JAX without CPU devices: astjax's own)
            pass
    return SingleDeviceSharding(host_device())
