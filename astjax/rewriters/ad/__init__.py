"""Autodiff's entry points, with every rule module loaded into the primitive table."""
from . import custom_rules, jvp_rules, jvp_rules_control  # noqa: F401  (registration)
from . import vjp_rules, vjp_rules_control, vjp_rules_structural  # noqa: F401  (registration)
from .util import differentiable  # noqa: F401
from .jvp import jvp_func  # noqa: F401
from .vjp import vjp_func  # noqa: F401
