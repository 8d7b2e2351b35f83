"""Backends: each compiles core form to something that runs.

A backend is a package `astjax.backends.<name>` with
    module_source(func, origin) -> (generated module text, {constant name: array})
    compile_func(func, origin) -> a Python callable taking the func's parameters
and its own table of lowerings, keyed by primitive name. Backends import the core and nothing
above it.
"""
import functools
import hashlib
import importlib
import os

AVAILABLE = ("numpy", "numba", "cuda", "xla", "auto")


def get(name: str):
    if name not in AVAILABLE:
        raise ValueError(name)
    return importlib.import_module(f"astjax.backends.{name}")


def numba_runtime_files() -> list:
    """The Numba backend's modules its generated code calls into (here, so that a digest of
    them needs no import of Numba).  Numba compiles (inlines) them into the machine code it
    caches, but keys that cache by the generated file alone."""
    here = os.path.dirname(os.path.abspath(__file__))
    numba, vecmath = os.path.join(here, "numba"), os.path.join(here, "vecmath")
    helpers = sorted(f for f in os.listdir(numba) if f.endswith("_runtime.py"))  # conv, blas..
    return [os.path.join(numba, f) for f in ["runtime.py"] + helpers] + \
        [os.path.join(vecmath, f) for f in sorted(os.listdir(vecmath)) if f.endswith(".py")]


@functools.lru_cache(maxsize=None)
def numba_runtime_digest() -> str:
    """A digest of those files' names and contents: part of the generated kernels' file
    names and of the auto backend's tuning records."""
    h = hashlib.sha256()
    for path in numba_runtime_files():
        with open(path, "rb") as f:
            h.update(os.path.basename(path).encode() + b"\0" + f.read())
    return h.hexdigest()
