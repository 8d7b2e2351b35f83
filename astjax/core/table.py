"""Imports every kind of primitive, so that `PRIMITIVES` is complete once this is imported."""
from . import prims  # noqa: F401
from .primitives import PRIMITIVES, TABLES, describe, get, missing  # noqa: F401
