"""Batching (vmap) of core form: `vmap_func` / `batch_func`, and the table `BATCH` of batching
rules (contract in `util`), filled by one module per primitive kind."""
from . import (contraction, control, creation, custom, effect, elementwise, indexing,  # noqa: F401
               reduction, shape, sorting)
from .util import BATCH
from .vmap import batch_func, vmap_func

__all__ = ["BATCH", "batch_func", "vmap_func"]
