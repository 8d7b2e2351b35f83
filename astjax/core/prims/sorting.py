"""Sorting primitives: sort and argsort along one dimension (stable)."""
import numpy as np

from ..avals import AVal
from ..primitives import define

define("sort", lambda x, *, dimension: np.sort(x, axis=dimension, kind="stable"),
       lambda a, *, dimension: a.strong(), kind="sorting")
define("argsort", lambda x, *, dimension, index_dtype: np.argsort(x, axis=dimension, kind="stable")
       .astype(index_dtype),
       lambda a, *, dimension, index_dtype: AVal(a.shape, np.dtype(index_dtype)), kind="sorting")
