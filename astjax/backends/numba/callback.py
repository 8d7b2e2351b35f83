"""Host calls on Numba: a kernel is a module on disk, compiled in another process, and cannot
hold the user's live Python function. The auto backend keeps such functions on the tier that
answered first (XLA or NumPy); a function pinned to Numba is told so."""
from astjax.errors import TransformError

from .emit import LOWER


def not_in_kernels(fe, eqn, ins, outs):
    name = {"pure_callback": "pure_callback", "io_callback": "io_callback",
            "debug_callback": "debug.callback"}.get(eqn.prim)
    if name is None:  # (undefined_derivative: the user's error, raised before any backend)
        raise TransformError(eqn.params["message"], eqn.params["loc"])
    raise TransformError(f"{name} cannot run in a Numba kernel (it calls a live Python "
                         "function)", eqn.loc,
                         hint="use backend='xla' or backend='numpy' (or the default, auto) "
                              "for a function that calls back into Python")


LOWER.set("pure_callback", not_in_kernels)
LOWER.set("undefined_derivative", not_in_kernels)
