"""Effects: debug_print is a host call (jaxlib's CPU callback) that prints its values with the
primitive's own formatting when the computation reaches it: in program order, inside loops
and branches too, once per replica under pmap.

A run whose reverse-mode tape overflows is repeated with more room; while a run that may be
repeated is under way its lines are held (`held_prints`) and printed once it is final."""
import contextlib
import threading

from astjax.core.primitives import get

from .emit import LOWER

_held = threading.local()  # the callback runs on the caller's thread (jaxlib executes in it)


@LOWER.register("debug_print")
def _debug_print(body, eqn, *values):
    show, fmt = get("debug_print").impl, eqn.params["fmt"]

    def printed(*arrays):
        lines = getattr(_held, "lines", None)
        if lines is None:
            show(*arrays, fmt=fmt)
        else:
            lines.append((arrays, fmt))
        return ()
    return body.host_call(printed, list(values), [], hint="print")


@contextlib.contextmanager
def held_prints():
    """Collects the lines printed meanwhile: `release()` prints them, leaving drops them."""
    outer, _held.lines = getattr(_held, "lines", None), []
    lines = _held.lines
    try:
        yield lambda: [get("debug_print").impl(*a, fmt=f) for a, f in lines]
    finally:
        _held.lines = outer
