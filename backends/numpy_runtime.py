"""`lax` as generated NumPy-backend modules see it: every primitive's NumPy implementation."""
import types

from astjax.core.table import PRIMITIVES

lax = types.SimpleNamespace(**{name: prim.impl for name, prim in PRIMITIVES.items()})
