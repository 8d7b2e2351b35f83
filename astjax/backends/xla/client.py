"""Every call astjax makes into jaxlib, in one module (the XLA backend's only fragile part).

jaxlib's entry points below `jax.extend` are undocumented and have changed between releases
(`compile` became `compile_and_load`, `xla_extension` became `_jax`, buffer helpers went away),
so nothing else in astjax imports jaxlib: a new jaxlib is adapted here. Verified on
jax == jaxlib == 0.10.2 (pinned in setup.cfg). astjax hands jaxlib StableHLO text that it wrote
itself; no JAX transformation ever sees user code.

The single-device path uses jaxlib alone, never `import jax` (a second of a process's first
call): its own CPU client, arrays put with a sharding and shapes of its own, results read
back through their host memory. Replicated runs (pmap) and modules that call back into
Python still borrow JAX's shardings and MLIR context, and import it when first used.
"""
import functools
import os
import threading
from typing import NamedTuple

import numpy as np

from astjax.errors import TransformError


class Unavailable(TransformError):
    pass


@functools.lru_cache(maxsize=None)
def _jaxlib():
    """(jaxlib._jax, jaxlib.xla_client), imported once, with LAPACK's custom calls registered
    for the linear-algebra lowerings (as JAX registers them at its import; their LAPACK
    routines are bound when a module calling them is first compiled, see `_with_lapack`)."""
    # As `import jax` does: XLA's C++ logs warnings and errors, not its start-up notes.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    try:
        from jaxlib import _jax, xla_client
        from jaxlib.cpu import _lapack
        for name, target in _lapack.registrations().items():
            xla_client.register_custom_call_target(name, target, platform="cpu",
                                                   api_version=int(name.endswith("_ffi")))
    except Exception as e:  # any failure to import is the same news for the user
        raise Unavailable(f"the XLA backend needs jaxlib 0.10.2 ({type(e).__name__}: {e})",
                          hint="pip install 'jax[cpu]==0.10.2', or use backend=\"numpy\" or "
                               "\"numba\"") from None
    return _jax, xla_client


def available() -> bool:
    try:
        _jaxlib()
        return True
    except Unavailable:
        return False


_CLIENT_LOCK = threading.Lock()
_CLIENT = []  # the one client, once made


def client():
    """This process's CPU client (`XLA_FLAGS=--xla_force_host_platform_device_count=N` gives
    it N devices), created as JAX creates its own. Made under a lock: threads making their
    first calls at once made two clients, and one's buffers were refused by the other's
    executables ("on device cpu:0, but replica is assigned to device cpu:0")."""
    if not _CLIENT:
        with _CLIENT_LOCK:
            if not _CLIENT:
                _CLIENT.append(_jaxlib()[1].make_cpu_client(asynchronous=True))
    return _CLIENT[0]


def devices() -> list:
    return list(client().local_devices())


def _options(num_replicas: int, quick: bool = False):
    """Compile options as JAX 0.10.2 sets them by default; `quick`: LLVM's optimisation off
    (see `compile`)."""
    _, xla_client = _jaxlib()
    options = xla_client.CompileOptions()
    options.num_replicas, options.num_partitions = num_replicas, 1
    options.device_assignment = xla_client.DeviceAssignment.create(
        np.array([[d.id] for d in devices()[:num_replicas]]))
    build = options.executable_build_options
    build.use_spmd_partitioning = build.use_shardy_partitioner = True
    build.memory_fitting_level = 29  # (JAX's default effort, O2)
    options.profile_version = -1  # (no feedback-directed profile to look for)
    if quick:
        build.debug_options.xla_backend_optimization_level = 0
    return options


@functools.lru_cache(maxsize=None)
def _lapack_bound() -> None:
    """LAPACK's routines bound for jaxlib's kernels. They come from SciPy, whose import takes
    0.1-0.2 s, so only a module that calls them pays it."""
    from jaxlib.cpu import _lapack
    _lapack.initialize()


def _with_lapack(module) -> None:
    """Binds LAPACK first if `module` (StableHLO text, or a serialized executable) calls it."""
    if (b"lapack_" if isinstance(module, bytes) else "lapack_") in module:
        _lapack_bound()


def compile(text: str, num_replicas: int = 1, host_callbacks=(), quick: bool = False):
    """A loaded executable for StableHLO module text, on the first `num_replicas` devices;
    `host_callbacks[k]` is the Python function the module's callback with index k calls.

    `quick` compiles with LLVM's optimisation off: measured on the shared bench, a batched
    while loop compiled in 0.10 s instead of 0.30 s and ran in 46 ms instead of 10 ms; an
    MLP's gradient in 0.11 s instead of 0.22 s and ran as fast (its products are library
    calls either way)."""
    _with_lapack(text)
    chosen = _jaxlib()[1].DeviceList(tuple(devices()[:num_replicas]))
    options = _options(num_replicas, quick)
    if not host_callbacks:
        return client().compile_and_load(text, chosen, options)
    _needs_jax("a module that calls back into Python (debug.print, pure_callback)")
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    with mlir.make_ir_context():  # callbacks are taken only with a parsed module
        return client().compile_and_load(ir.Module.parse(text), chosen, options,
                                         host_callbacks=list(host_callbacks))


def serialize(executable) -> bytes:
    return client().serialize_executable(executable)


def deserialize(data: bytes, num_replicas: int = 1):
    _with_lapack(data)
    chosen = _jaxlib()[1].DeviceList(tuple(devices()[:num_replicas]))
    return client().deserialize_executable(data, chosen, _options(num_replicas))


class _Shape:
    """What jaxlib keeps as an array's `aval`: its shape and dtype."""
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), False


@functools.lru_cache(maxsize=4096)
def _shape(shape, dtype) -> _Shape:
    return _Shape(shape, dtype)


@functools.lru_cache(maxsize=None)
def _sharding_class():
    """jaxlib's single-device sharding with the three members its C++ asks the Python class
    for (JAX's own class adds them)."""
    _jax, xla_client = _jaxlib()

    replicated = xla_client.HloSharding.replicate()

    class OnOneDevice(_jax.SingleDeviceSharding):
        # (jaxlib's C++ asks for these three times a buffer: made once, a device put costs
        # 6 us instead of 10)
        @property
        def memory_kind(self):
            return self._memory_kind

        @functools.cached_property
        def _internal_device_list(self):
            return xla_client.DeviceList((self._device,))

        def _to_xla_hlo_sharding(self, num_dimensions):
            return replicated

    return OnOneDevice


@functools.lru_cache(maxsize=None)
def _sharding(device):
    return _sharding_class()(device)


@functools.lru_cache(maxsize=None)
def _ZERO_COPY():
    return _jaxlib()[0].HostBufferSemantics.ZERO_COPY


@functools.lru_cache(maxsize=None)
def _COPY_NOW():
    return _jaxlib()[0].HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL


ALIGNMENT = 64  # bytes: the CPU client aliases host memory aligned to this, else copies
SMALL_BYTES = 4096  # an array this small is copied to the device without looking


def put_array(array: np.ndarray, device):
    """A device buffer holding a NumPy array (see `putter`)."""
    return putter(device)(array)


@functools.lru_cache(maxsize=None)
def putter(device):
    """put(array) -> a device buffer holding it (the call path of a compiled function).

    On the CPU the buffer aliases an aligned array (no copy): the caller must not let the array
    change while a computation reading it runs (compiled functions wait for their results).
    A misaligned array (NumPy aligns only to 16 bytes) is put the same way, and jaxlib copies
    it on one of its own threads: the call's arrays are then copied side by side, while the
    computation is dispatched. Copying each on the calling thread instead was measured slower
    in whole calls: an MLP's gradient with two large misaligned inputs, 3.46 against 3.28 ms;
    a sum over 200,000 misaligned floats, 229 against 195 us. A small array is copied without
    asking (its address costs 1.5 us to read, its copy less)."""
    _jax = _jaxlib()[0]
    put, sharding, devices = _jax.batched_device_put, _sharding(device), [device]
    alias, copy = _ZERO_COPY(), _COPY_NOW()

    def put_one(array):
        semantics = copy if array.nbytes < SMALL_BYTES else alias
        return put(_shape(array.shape, array.dtype), sharding, [array], devices, True, False,
                   semantics, True)
    return put_one


# A put costs 8-13 us whatever the array's size (jaxlib builds an array object for each), and
# a function is often called with the same data (a dataset, constants) beside the values that
# change, so each argument position keeps the buffer of the array last put there.
REUSE_BYTES = 1 << 20  # (a larger array's own work dwarfs a put; the buffer is not kept)
COMPARE_BYTES = 1 << 16  # bytes of a copied array compared before its buffer is reused


def aliased(array: np.ndarray) -> bool:
    """Whether a put of `array` aliases its memory: jaxlib's CPU client aliases a row-major
    array (NumPy's own strides, a length-1 axis's included) at an ALIGNMENT-aligned address
    and copies any other (asking the buffer for its address instead imports JAX: a second)."""
    stride, strides = array.itemsize, []
    for n in reversed(array.shape):
        strides.append(stride)
        stride *= n
    return array.strides == tuple(reversed(strides)) and array.ctypes.data % ALIGNMENT == 0


class _Put(NamedTuple):
    """An argument position's last put: the array (None: a small one), its layout, the
    buffer, whether that aliases the array's memory, and the bytes it holds (None: unread)."""
    array: object
    layout: tuple
    buffer: object
    aliased: bool
    data: bytes


class Arguments:
    """Device buffers for a compiled function's arguments, position by position: an argument
    that is what its position held at the last put reuses that buffer.

    - An array smaller than SMALL_BYTES (which a put copies) when it has the last one's
      shape, dtype and bytes (comparing them costs 0.4-0.7 us).
    - A larger one (up to REUSE_BYTES) when it is the same array object with the same shape,
      strides and dtype, and the buffer aliases its memory (so a change made in place is what
      the next call reads, as through a new buffer); or, where jaxlib copied it (misaligned),
      when its bytes are still the copy's (up to COMPARE_BYTES: 5 us at 64 KB). Its bytes are
      read from the second call with it on: an array that is new at every call (a parameter
      being updated) costs no more than a put.

    Each position keeps its last array alive until another takes its place."""

    def __init__(self, device, count: int):
        self._put = putter(device)
        self._last = [None] * count  # per position: _Put

    def buffer(self, position: int, array: np.ndarray):
        if array.nbytes > REUSE_BYTES:
            return self._put(array)
        last = self._last[position]  # (read once: another thread may replace it)
        if array.nbytes < SMALL_BYTES:
            layout, data = (array.shape, array.dtype), array.tobytes()
            if last is not None and last.array is None and last.layout == layout and \
                    last.data == data:
                return last.buffer
            buffer = self._put(array)
            self._last[position] = _Put(None, layout, buffer, False, data)
            return buffer
        layout = (array.shape, array.strides, array.dtype)
        if last is not None and last.array is array and last.layout == layout:
            if last.aliased:
                return last.buffer
            if array.nbytes <= COMPARE_BYTES:
                data = array.tobytes()
                if data == last.data:
                    return last.buffer
                buffer = self._put(array)
                self._last[position] = _Put(array, layout, buffer, False, data)
                return buffer
        buffer = self._put(array)
        self._last[position] = _Put(array, layout, buffer, aliased(array), None)
        return buffer


def runner(executable, results: list, device):
    """run(buffers) -> NumPy arrays: `executable` on one device, its results (shapes and
    dtypes `results`) read back as read-only arrays over the buffers' memory (no copy)."""
    _jax = _jaxlib()[0]
    sharding = _sharding(device)
    handlers = [_jax.array_result_handler(_shape(shape, dtype), sharding, True, True)
                for shape, dtype in results]
    readers = [_reader(tuple(shape), np.dtype(dtype),
                       layout == client().get_default_layout(np.dtype(dtype), shape, device))
               for layout, (shape, dtype) in zip(executable.get_output_layouts(), results)]

    def run(buffers):
        outs = executable.execute_sharded(buffers).consume_with_handlers(handlers)
        return [read(buffer) for read, buffer in zip(readers, outs)]

    return run


class _Memory:
    """A result buffer as NumPy sees it (row-major, read-only); holding it keeps the buffer
    alive. (A CPU buffer is host memory.)"""

    def __init__(self, buffer, shape: tuple, typestr: str):
        self.buffer = buffer
        self.__array_interface__ = {"data": (buffer.unsafe_buffer_pointer(), True),
                                    "shape": shape, "typestr": typestr, "version": 3}


def _reader(shape: tuple, dtype: np.dtype, default_layout: bool):
    """buffer -> a read-only NumPy array of it: a view of its memory where it is laid out as
    NumPy lays out arrays (XLA's default, row-major), else JAX's own copying read."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if not default_layout:
        def read(buffer):
            import jax  # noqa: F401 (gives jaxlib's arrays their NumPy conversion)
            return np.asarray(buffer)
    elif nbytes == 0:
        def read(buffer):
            out = np.zeros(shape, dtype)
            out.flags.writeable = False
            return out
    else:
        typestr = dtype.str

        def read(buffer):
            buffer.block_until_ready()
            return np.asarray(_Memory(buffer, shape, typestr))
    return read


def execute_replicated(executable, per_device: list, chosen: list) -> list:
    """Run one replica per device of `chosen`: `per_device[d]` are replica d's NumPy inputs,
    each with a leading axis of 1 (so that together they are one array laid out over the
    devices along axis 0, as jaxlib wants its inputs); the result is, per output, the list of
    its per-replica buffers."""
    _needs_jax("pmap over XLA devices")
    from jax._src.core import ShapedArray
    sharding = _over_devices(tuple(chosen))
    semantics = _jaxlib()[0].HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
    arguments = []
    for column in zip(*per_device):
        shards = [np.array(x, copy=True) for x in column]  # (jaxlib fails on one array twice)
        shape = (len(shards) * shards[0].shape[0],) + shards[0].shape[1:]
        arguments.append(_jaxlib()[0].batched_device_put(
            ShapedArray(shape, shards[0].dtype), sharding, shards, list(chosen), True, False,
            semantics, True))
    results = executable.execute_sharded(arguments)
    return results.disassemble_into_single_device_arrays()


def _needs_jax(what: str) -> None:
    """JAX itself, for the parts of jaxlib that only its Python classes complete."""
    try:
        import jax  # noqa: F401
    except ImportError as e:
        raise Unavailable(f"{what} on the XLA backend needs jax 0.10.2 besides jaxlib ({e})",
                          hint="pip install 'jax[cpu]==0.10.2', or use backend=\"numpy\" or "
                               "\"numba\"") from None


@functools.lru_cache(maxsize=None)
def _over_devices(chosen: tuple):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    return NamedSharding(Mesh(np.array(chosen), ("replicas",)), PartitionSpec("replicas"))
