"""Lowering of debug_print: an objmode print of the values."""
from .callback import not_in_kernels
from .emit import LOWER


def lower_debug_print(fe, eqn, ins, outs):
    """Formatting is Python's (str.format on NumPy values), so it runs in object mode."""
    return ["with numba.objmode():",
            f"    rt.debug_print({eqn.params['fmt']!r}{''.join(', ' + x for x in ins)})"]


LOWER.set("debug_print", lower_debug_print)
LOWER.set("io_callback", not_in_kernels)
LOWER.set("debug_callback", not_in_kernels)
