"""Batching of the Fourier transform: it maps over leading axes already."""
from .util import BATCH, leading_batch

BATCH.set("fft", leading_batch("fft"))
