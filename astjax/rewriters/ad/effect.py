"""Effects carry no derivative: debug_print prints, and debug.callback sees, the primal values
only. (io_callback's derivative is undefined: see callback.py.)"""
from .callback import raising_jvp, undefined_vjp
from .rules import JVP, VJP, no_derivative

no_derivative("debug_print", "debug_callback")
JVP.set("io_callback", raising_jvp("io_callback"))
VJP.set("io_callback", undefined_vjp("io_callback"))
