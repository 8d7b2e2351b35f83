"""Somewhere for Numba's cache, whatever the file system allows.

Numba caches machine code beside a module (`__pycache__`) or, where that folder cannot be
written, in the user's cache folder; when neither can be written (a read-only install and a
read-only home), decorating with `cache=True` raises "no locator available". Before such a
module is imported, `ensure_locator` checks that Numba will find a place, and otherwise points
Numba at a private temporary folder for the rest of the process, with one warning: the code
still compiles and runs, only reuse across processes is lost."""
import os
import tempfile
import threading
import warnings

import numba
from numba.core import caching

_lock = threading.Lock()


def ensure_locator(path: str) -> None:
    """Make sure Numba can cache functions defined in the file at `path`."""
    with _lock:
        if numba.config.CACHE_DIR or _has_locator(path):
            return
        folder = tempfile.mkdtemp(prefix="astjax-numba-cache-")
        numba.config.CACHE_DIR = folder
    warnings.warn(f"astjax: Numba cannot cache beside {os.path.dirname(path)} nor in the user's "
                  f"cache folder; compiled code goes to {folder} for this process (set "
                  "NUMBA_CACHE_DIR to a writable folder to keep it across runs)", stacklevel=3)


def _has_locator(path: str) -> bool:
    def probe():
        pass
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")  # 0.61 renamed
    for locator in impl._locator_classes:
        try:
            if locator.from_function(probe, path) is not None:
                return True
        except Exception:  # a locator that cannot judge this file: try the next
            continue
    return False


# The backend's own runtime modules decorate with cache=True when they are imported, right
# after this module.
ensure_locator(os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime.py"))
