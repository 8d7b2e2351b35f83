"""Batching of threefry2x32: its operands broadcast against each other like an elementwise
primitive's (the same rule, for its two results)."""
from .elementwise import broadcasting
from .util import BATCH

BATCH.set("threefry2x32", broadcasting("threefry2x32"))
