"""Backends: each compiles core form to something that runs.

A backend is a module `astjax.backends.<name>_backend` with
    module_source(func, origin) -> (generated module text, {constant name: array})
    compile_func(func, origin) -> a Python callable taking the func's parameters
"""
import importlib

AVAILABLE = ("numpy", "numba")


def get(name: str):
    if name not in AVAILABLE:
        raise ValueError(name)
    return importlib.import_module(f"astjax.backends.{name}_backend")
