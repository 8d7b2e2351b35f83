"""The rest of JAX's top-level names that programs call about their environment: checks and
guards (`debug_nans`, `transfer_guard`, ...) as context managers that change nothing astjax
computes, the host's process and device counts, array construction from per-device pieces
(one device: the host), and `typeof`."""
import contextlib
import platform
import sys

import numpy as np

from .abstract import ShapeDtypeStruct
from .core.array import as_array


@contextlib.contextmanager
def _unchanged(*args, **kwargs):
    yield


# (NaN/Inf checks, transfer guards, promotion and leak checks, compile logging: JAX's debugging
# aids; astjax's errors name the user's line, and its compiles are on the `astjax` logger)
debug_nans = debug_infs = default_device = transfer_guard = _unchanged
transfer_guard_host_to_device = transfer_guard_device_to_host = _unchanged
transfer_guard_device_to_device = numpy_rank_promotion = numpy_dtype_promotion = _unchanged
log_compiles = checking_leaks = check_tracer_leaks = explain_cache_misses = _unchanged


def host_count() -> int:
    from .core import processes
    return processes.count()


def host_id() -> int:
    from .core import processes
    return processes.index()


def host_ids() -> list:
    return list(range(host_count()))


process_indices = host_ids


def live_arrays(platform=None) -> list:
    return []


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """The array whose every element `data_callback(index)` gives for the whole index (the
    host holds it all)."""
    index = tuple(slice(0, n) for n in shape)
    return as_array(np.asarray(data_callback(index), dtype))


def make_array_from_single_device_arrays(shape, sharding, arrays, *, dtype=None):
    """The array the per-device pieces make up: one piece on the host's one device."""
    if len(arrays) == 1 and tuple(np.shape(arrays[0])) == tuple(shape):
        return as_array(np.asarray(arrays[0], dtype))
    raise NotImplementedError("make_array_from_single_device_arrays with several pieces: "
                              "astjax's arrays are whole on the host")


def make_array_from_process_local_data(sharding, local_data, global_shape=None):
    return as_array(np.asarray(local_data))


def typeof(x) -> ShapeDtypeStruct:
    """x's shape and dtype (JAX's abstract value of it)."""
    from .core.bind import aval
    a = aval(x)
    return ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak)


def print_environment_info(return_string: bool = False):
    import astjax
    text = (f"astjax:  {astjax.__version__}\nnumpy:   {np.__version__}\n"
            f"python:  {sys.version.split()[0]}\nplatform: {platform.platform()}\n")
    if return_string:
        return text
    print(text, end="")
    return None


def effects_barrier() -> None:
    """Waits for every effect (prints, callbacks) to have run: astjax's have when a call
    returns."""


def copy_to_host_async(x):
    """Starts copying x's arrays to the host: they are host memory already."""
    return x
