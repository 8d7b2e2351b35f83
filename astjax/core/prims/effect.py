"""Effects: primitives that are never removed as dead code (kind "effect")."""
import numpy as np

from ..host import conform
from ..primitives import define


def _debug_print(*values, fmt):
    print(fmt.format(*[np.asarray(v) for v in values]))
    return ()


def _call(*operands, callback, results, **_):
    return conform(callback(*operands), results, callback)


def _debug_callback(*operands, callback, **_):
    callback(*operands)
    return []


def _results(*avals, results, **_):
    return list(results)


# debug_print(*values, fmt=...): prints when the compiled code runs; never removed as dead code
define("debug_print", _debug_print, lambda *avals, fmt: [], multiple_results=True, kind="effect")
# io_callback(*operands, callback=H, results=(AVal, ...), ordered=bool): the user's function
# H (a HostFunction, see prims/callback.py), called whenever the computation reaches it
define("io_callback", _call, _results, multiple_results=True, kind="effect")
# debug_callback(*operands, callback=H, ordered=bool): H called for what it does (it returns
# nothing); derivatives see through it, as through debug_print
define("debug_callback", _debug_callback, lambda *avals, **_: [], multiple_results=True, kind="effect")
