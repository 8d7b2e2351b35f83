"""Batching (vmap) of core form: `vmap_func` / `batch_func`, and the table `BATCH` of batching
rules (contract in `util`), filled by one module per primitive kind."""
from astjax.core.primitives import import_kinds

from .util import BATCH
from .vmap import batch_func, vmap_func

import_kinds(__name__)

__all__ = ["BATCH", "batch_func", "vmap_func"]
