"""The tier a function settled on, on disk, so a new process starts on it without timing.

A record is a small JSON file in `cache_root()/auto/`, named by a digest of the function's
reference module (its NumPy source and constants) and the versions of what compiled it: an
edited function, new constants, a new Numba or jaxlib, or another astjax (a new emitter
writes another kernel: a record names its kernel's module) never read an old record. A record
that cannot be read, or does not say what a record says, is ignored (and rewritten when the
function settles again); so is a close call (`decisive`), which the next process times again.
"""
import functools
import glob
import importlib.util
import json
import os

from astjax.core.files import astjax_source_digest, cache_root, content_digest, write_atomic
from astjax.core.ir import Func

TIERS = ("xla", "numba", "numpy")
CLOSE = 1.25  # timings nearer than this factor are a close call, timed over more calls
# A recorded choice whose two timings (each the fastest of ten calls, after CLOSE) are nearer
# than this is timed again by the next process. At 1.25, mlp_value_and_grad (Numba 2.7-2.8 ms,
# XLA 3.0-3.4) was timed again by every process: twenty alternated calls of a short run,
# each slowed by the other tier's threads, put its median at 3.4-3.7 ms instead of 2.8.
RETIME = 1.1


def key(func: Func, origin: str) -> str:
    from astjax.backends import numpy as reference
    text, consts = reference.module_source(func, origin)
    versions = (f"jaxlib {_jaxlib_version()} numba {_numba_version()} "
                f"astjax {astjax_source_digest()[:12]}")
    return f"{func.name}_{content_digest(text, consts, versions)[:20]}"


def _jaxlib_version() -> str:
    try:
        import jaxlib
    except ImportError:  # (the auto backend runs without XLA: NumPy, then Numba)
        return "none"
    return jaxlib.__version__


@functools.lru_cache(maxsize=None)
def _numba_version() -> str:
    """numba's installed version, read from its dist-info folder's name where there is one
    (importlib.metadata parses the METADATA file: 40 ms of a process's first call)."""
    spec = importlib.util.find_spec("numba")
    if spec is None:
        return "none"
    site = os.path.dirname(next(iter(spec.submodule_search_locations or [""]), "") or ".")
    found = glob.glob(os.path.join(glob.escape(site), "numba-*.dist-info"))
    if len(found) == 1:
        return os.path.basename(found[0])[len("numba-"):-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("numba")
    except PackageNotFoundError:
        return "none"


def path_of(record_key: str) -> str:
    return os.path.join(cache_root(), "auto", record_key + ".json")


def read(record_key: str):
    """The record (a dict with "winner" among TIERS), or None when there is none to trust."""
    try:
        with open(path_of(record_key), encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(record, dict) or record.get("winner") not in TIERS:
        return None
    if record["winner"] == "numba" and not isinstance(record.get("module"), str):
        return None
    return record


def decisive(record: dict) -> bool:
    """Whether the record's two timings (when it has them) are RETIME or further apart, and
    were not taken beside a compile (`contended`).  A closer call may have been decided by
    whatever else ran on the machine while it was timed, so the next process times it again
    (and rewrites the record)."""
    if record.get("contended"):
        return False
    times = [t for name, t in record.items() if name.endswith("_s")
             and isinstance(t, (int, float)) and t > 0]
    return len(times) != 2 or max(times) >= RETIME * min(times)


def mark_hot(record_key: str) -> None:
    """Note that the function turned hot (its Numba kernel was wanted) in this process."""
    try:
        write_atomic(path_of(record_key)[:-len(".json")] + ".hot", "")
    except OSError:
        pass


def was_hot(record_key: str) -> bool:
    """Whether the function turned hot in an earlier process (whose kernel, compiled or
    compiling, the next process picks up from its second call, not its tenth)."""
    return os.path.exists(path_of(record_key)[:-len(".json")] + ".hot")


def write(record_key: str, record: dict) -> None:
    try:
        write_atomic(path_of(record_key), json.dumps(record, indent=1, sort_keys=True))
    except OSError:  # a read-only cache: the next process times again
        pass
