"""Every call astjax makes into jaxlib, in one module (the XLA backend's only fragile part).

jaxlib's entry points below `jax.extend` are undocumented and have changed between releases
(`compile` became `compile_and_load`, `xla_extension` became `_jax`, buffer helpers went away),
so nothing else in astjax imports jaxlib: a new jaxlib is adapted here. Verified on
jax == jaxlib == 0.10.2 (pinned in setup.cfg). astjax hands jaxlib StableHLO text that it wrote
itself; no JAX transformation ever sees user code.
"""
import functools

import numpy as np

from astjax.errors import TransformError


class Unavailable(TransformError):
    pass


@functools.lru_cache(maxsize=None)
def _jaxlib():
    """(jax.extend.backend, xla_client, _jax, ShapedArray, SingleDeviceSharding), imported once."""
    try:
        from jax._src.core import ShapedArray
        from jax._src.lib import _jax, xla_client
        from jax.extend import backend
        from jax.sharding import SingleDeviceSharding
        from jaxlib.cpu import _lapack
        _lapack.initialize()  # LAPACK's entry points for the linear-algebra custom calls
    except Exception as e:  # any failure to import is the same news for the user
        raise Unavailable(f"the XLA backend needs jax and jaxlib 0.10.2 ({type(e).__name__}: {e})",
                          hint="pip install 'jax[cpu]==0.10.2', or use backend=\"numpy\" or "
                               "\"numba\"") from None
    return backend, xla_client, _jax, ShapedArray, SingleDeviceSharding


def available() -> bool:
    try:
        _jaxlib()
        return True
    except Unavailable:
        return False


@functools.lru_cache(maxsize=None)
def client():
    return _jaxlib()[0].get_backend("cpu")


def devices() -> list:
    return list(client().local_devices())


def compile(text: str, num_replicas: int = 1, host_callbacks=()):
    """A loaded executable for StableHLO module text, on the first `num_replicas` devices;
    `host_callbacks[k]` is the Python function the module's callback with index k calls."""
    backend, xla_client, *_ = _jaxlib()
    options = backend.get_compile_options(num_replicas=num_replicas, num_partitions=1)
    chosen = xla_client.DeviceList(tuple(devices()[:num_replicas]))
    if not host_callbacks:
        return client().compile_and_load(text, chosen, options)
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    with mlir.make_ir_context():  # callbacks are taken only with a parsed module
        return client().compile_and_load(ir.Module.parse(text), chosen, options,
                                         host_callbacks=list(host_callbacks))


def serialize(executable) -> bytes:
    return client().serialize_executable(executable)


def deserialize(data: bytes, num_replicas: int = 1):
    backend, xla_client, *_ = _jaxlib()
    options = backend.get_compile_options(num_replicas=num_replicas, num_partitions=1)
    chosen = xla_client.DeviceList(tuple(devices()[:num_replicas]))
    return client().deserialize_executable(data, chosen, options)


@functools.lru_cache(maxsize=None)
def _sharding(device):
    return _jaxlib()[4](device)


@functools.lru_cache(maxsize=4096)
def _aval(shape, dtype):
    return _jaxlib()[3](shape, dtype)


def put(value, device=None):
    """A device buffer holding `value` (a NumPy array or scalar; a buffer passes through)."""
    if is_buffer(value):
        return value
    array = np.asarray(value)
    return _jaxlib()[2].batched_device_put(_aval(array.shape, array.dtype),
                                           _sharding(device or _first_device()), [array],
                                           [device or _first_device()], True, False,
                                           _COPY_DURING_CALL(), True)


def put_array(array: np.ndarray, device):
    """`put` of a NumPy array, without the checks (the call path of a compiled function).

    On the CPU the buffer may alias the array (no copy): the caller must not let the array
    change while a computation reading it runs (compiled functions wait for their results)."""
    return _jaxlib()[2].batched_device_put(_aval(array.shape, array.dtype), _sharding(device),
                                           [array], [device], True, False, _ZERO_COPY(), True)


@functools.lru_cache(maxsize=None)
def _first_device():
    return devices()[0]


@functools.lru_cache(maxsize=None)
def _COPY_DURING_CALL():
    return _jaxlib()[2].HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


@functools.lru_cache(maxsize=None)
def _ZERO_COPY():
    return _jaxlib()[2].HostBufferSemantics.ZERO_COPY


def is_buffer(value) -> bool:
    return type(value).__name__ == "ArrayImpl" and type(value).__module__.startswith("jaxlib")


def execute(executable, buffers: list) -> list:
    """Run on one device: buffers in, buffers out."""
    return executable.execute(buffers)


def execute_replicated(executable, per_device: list, chosen: list) -> list:
    """Run one replica per device of `chosen`: `per_device[d]` are replica d's NumPy inputs,
    each with a leading axis of 1 (so that together they are one array laid out over the
    devices along axis 0, as jaxlib wants its inputs); the result is, per output, the list of
    its per-replica buffers."""
    jax_ = _jaxlib()[2]
    sharding = _over_devices(tuple(chosen))
    arguments = []
    for column in zip(*per_device):
        shards = [np.array(x, copy=True) for x in column]  # (jaxlib fails on one array twice)
        shape = (len(shards) * shards[0].shape[0],) + shards[0].shape[1:]
        arguments.append(jax_.batched_device_put(_aval(shape, shards[0].dtype), sharding, shards,
                                                 list(chosen), True, False, _COPY_DURING_CALL(),
                                                 True))
    results = executable.execute_sharded(arguments)
    return results.disassemble_into_single_device_arrays()


@functools.lru_cache(maxsize=None)
def _over_devices(chosen: tuple):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    return NamedSharding(Mesh(np.array(chosen), ("replicas",)), PartitionSpec("replicas"))


def block_until_ready(buffer):
    return buffer.block_until_ready()
