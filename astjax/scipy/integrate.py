"""`jax.scipy.integrate`: the trapezoidal rule (astjax.numpy's)."""
from ..numpy import trapezoid

__all__ = ["trapezoid"]
