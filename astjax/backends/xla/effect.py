"""Effects: debug_print is a host call (jaxlib's CPU callback) that prints its values with the
primitive's own formatting when the computation reaches it: in program order, inside loops
and branches too, once per replica under pmap.

debug.callback and io_callback are host calls into the user's function (see callback.py).

A run whose reverse-mode tape overflows is repeated with more room; while a run that may be
repeated is under way its lines and debug callbacks are held (`held_prints`) and run once it
is final. (An io_callback's result is needed at once: in such a run it is called again.)"""
import contextlib
import threading

import numpy as np

from astjax.core.primitives import get

from .callback import failed, lower_host_call
from .emit import LOWER

_held = threading.local()  # the callback runs on the caller's thread (jaxlib executes in it)


@LOWER.register("debug_print")
def _debug_print(body, eqn, *values):
    show, fmt = get("debug_print").impl, eqn.params["fmt"]

    def printed(*arrays):
        _now_or_held(lambda *a: show(*a, fmt=fmt), arrays)
        return ()
    return body.host_call(printed, list(values), [], hint="print")


LOWER.set("io_callback", lower_host_call)


@LOWER.register("debug_callback")
def _debug_callback(body, eqn, *operands):
    callback = eqn.params["callback"]

    def called(*arrays):
        _now_or_held(callback, arrays)
        return ()
    return body.host_call(failed(called), list(operands), [], hint="callback")


def _now_or_held(effect, arrays) -> None:
    """`effect(*arrays)` (a print, a debug callback) now, or held (with copies of the arrays)
    while a run that may be repeated is under way."""
    held = getattr(_held, "effects", None)
    if held is None:
        effect(*arrays)
    else:
        held.append((effect, [np.array(a) for a in arrays]))


@contextlib.contextmanager
def held_prints():
    """Collects the prints and debug callbacks made meanwhile: `release()` runs them, leaving
    drops them."""
    outer, _held.effects = getattr(_held, "effects", None), []
    effects = _held.effects
    try:
        yield lambda: [effect(*arrays) for effect, arrays in effects]
    finally:
        _held.effects = outer
