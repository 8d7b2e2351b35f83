"""Room for deep user code while compiling.

libcst's parser, visitors and code generation recurse once per level of nesting in the
source: a 600-term sum, an elif chain of 200 branches or ifs nested 55 deep pass Python's
default limit of 1000 frames. Compiling runs with a higher limit (pure-Python recursion, which
on Python 3.11+ uses no C stack per frame); the user's own limit is restored afterwards.
"""
import contextlib
import sys
import threading

COMPILE_LIMIT = 50_000

_lock = threading.Lock()
_active = 0
_saved = None


@contextlib.contextmanager
def deep_recursion():
    """While compiling: Python's recursion limit at least COMPILE_LIMIT (shared by threads:
    the first to enter raises it, the last to leave restores it)."""
    global _active, _saved
    with _lock:
        if _active == 0:
            _saved = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved, COMPILE_LIMIT))
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                sys.setrecursionlimit(_saved)
