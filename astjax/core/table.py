"""Imports every group of primitives, so that `PRIMITIVES` is complete once this is imported."""
from . import prims_ad, prims_control, prims_elementwise, prims_structural  # noqa: F401
from .primitives import PRIMITIVES, get, missing, register  # noqa: F401
