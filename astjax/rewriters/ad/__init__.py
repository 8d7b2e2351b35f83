"""Automatic differentiation of core form: forward mode (`jvp_func`), reverse mode
(`vjp_func`), and their rule tables (`JVP`, `VJP`, contracts in `rules`), filled by one module
per primitive kind."""
from astjax.core.primitives import import_kinds

from .jvp import jvp_func
from .rules import JVP, VJP
from .util import differentiable
from .vjp import vjp_func

import_kinds(__name__)

__all__ = ["JVP", "VJP", "differentiable", "jvp_func", "vjp_func"]
