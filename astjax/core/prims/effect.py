"""Effects: primitives that are never removed as dead code (kind "effect")."""
import numpy as np

from ..primitives import define


def _debug_print(*values, fmt):
    print(fmt.format(*[np.asarray(v) for v in values]))
    return ()


# debug_print(*values, fmt=...): prints when the compiled code runs; never removed as dead code
define("debug_print", _debug_print, lambda *avals, fmt: [], multiple_results=True, kind="effect")
