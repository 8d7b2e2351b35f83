"""The auto backend (`jit(f, backend="auto")`): each signature runs on the quickest tier that
is ready, and settles on the fastest one.

- XLA answers the first call: jaxlib compiles as quickly as for JAX's own first call (and
  from its disk cache in a new process). Where XLA cannot compile a function, the NumPy
  reference runs it, with one warning.
- Once the function is hot (`HOT_CALLS` calls, or `HOT_SECONDS` spent in it), its Numba
  kernel is compiled in a separate process (`background.py`) into Numba's disk cache: Numba's
  compiler is Python, and in a thread it would hold the caller's GIL for seconds.
- When the kernel is ready its first result is compared with XLA's (`tiered.disagreement`:
  beyond the tolerance it is dropped, with one warning); then calls go to each tier in turn,
  in runs of three whose first call is not timed (the other tier's threads may still spin),
  and the faster wins (by each tier's fastest call: a busy machine only slows calls).
  The choice is written beside the cached code (`record.py`), so a new process starts on the
  winner without timing again, unless the two were within 10% of each other (`RETIME`).
- A function with effects (`debug.print`) or collectives across processes stays on its first
  tier: running it twice, or on different tiers in different ranks, would change what it does.
- While this process compiles in the foreground (the front end, a first call's XLA compile),
  the compiling processes it started are paused (`background.paused`).

Each switch is logged on the `astjax` logger with the timings that decided it, and `show(f)`
says which tier runs the signature. `backend="numba"` (or `ASTJAX_BACKEND`) pins one backend.
"""
from astjax.core.ir import Func

from .background import paused as foreground  # noqa: F401 (compiled.py enters it)
from .tiered import Tiered

# Sizes are symbolic: the NumPy and Numba tiers serve every length, the XLA tier compiles
# per concrete sizes itself.
SYMBOLIC_SIZES = True


def missing() -> list:
    """Nothing: what XLA cannot run, the NumPy reference runs."""
    return []


def compile_func(func: Func, origin: str = "?"):
    return Tiered(func, origin)


def module_source(func: Func, origin: str) -> tuple:
    """The NumPy reference module (the code every tier agrees with; `Compiled.source` adds
    the line saying which tier runs the signature)."""
    from astjax.backends import numpy as reference
    return reference.module_source(func, origin)
