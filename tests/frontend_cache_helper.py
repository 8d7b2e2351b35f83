"""A module the disk-cache test program reads from (test_frontend_cache.py edits a copy)."""
import astjax.numpy as jnp

SCALE = 1.0
SHIFT = 3.0


def shifted(x):
    return jnp.sum(x) - SHIFT
