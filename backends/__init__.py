"""Backends: each compiles core form to something that runs.

A backend is a module `astjax.backends.<name>_backend` with
    module_source(func, origin) -> (generated module text, {constant name: array})
    compile_func(func, origin) -> a Python callable taking the func's parameters
"""
import importlib

if __name__ != "astjax.backends":  # a second copy would duplicate the backends' registrations
    raise ImportError("import astjax.backends, not the backends folder directly")

AVAILABLE = ("numpy", "numba")


def get(name: str):
    if name not in AVAILABLE:
        raise ValueError(name)
    return importlib.import_module(f"astjax.backends.{name}_backend")
