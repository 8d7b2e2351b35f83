"""Batching of sort and argsort: the sorted dimension shifts past the batch axis."""
from .util import BATCH, along_axis

for _name in ("sort", "argsort"):
    BATCH.set(_name, along_axis(_name, "dimension"))
