"""glibc's heap set to keep freed memory for the next call instead of giving it back.

Every backend allocates an array per operation and call: the NumPy tier's temporaries, a
Numba kernel's carries, double buffers and stacked outputs, XLA's outputs. glibc gives freed
memory back to the system once more than twice the largest block freed so far sits free at
the top of its heap, and serves blocks past its mmap threshold from fresh mappings: either
way the next call faults in every page it writes. A vmapped while loop over a million lanes
(40 MB of temporaries) took 9,490 page faults and 15-20 ms a call in a new process, against
none and 5-6 ms with these thresholds; the NumPy tier's rmsnorm_silu on 8192x256 float32
(8 MB arrays) 27-30 against 17-20 ms a call. Set when astjax is imported; a program that set
either threshold itself keeps its own.
"""
import ctypes
import os

# glibc's mallopt parameters, and the values set: 32 MiB is the most glibc's own adaptive
# mmap threshold reaches; 256 MiB of free memory may stay at the top of the heap.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
TRIM_BYTES, MMAP_BYTES = 256 << 20, 32 << 20


def keep_freed_memory() -> bool:
    """Set the thresholds (True), unless the program chose its own or the C library is not
    glibc (False)."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if any(name in os.environ for name in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")) \
            or "trim_threshold" in tunables or "mmap_threshold" in tunables:
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return False
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, ValueError):  # (another C library: nothing to set)
        return False
    mallopt(M_TRIM_THRESHOLD, TRIM_BYTES)
    mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
    return True
