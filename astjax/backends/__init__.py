"""Backends: each compiles core form to something that runs.

A backend is a package `astjax.backends.<name>` with
    module_source(func, origin) -> (generated module text, {constant name: array})
    compile_func(func, origin) -> a Python callable taking the func's parameters
and its own table of lowerings, keyed by primitive name. Backends import the core and nothing
above it.
"""
import importlib

AVAILABLE = ("numpy", "numba", "cuda", "xla", "auto")


def get(name: str):
    if name not in AVAILABLE:
        raise ValueError(name)
    return importlib.import_module(f"astjax.backends.{name}")
