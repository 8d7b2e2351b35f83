"""`jax.custom_derivatives`, the module JAX's custom derivatives are defined in (programs
import them from here too)."""
from .custom import closure_convert, custom_gradient, custom_jvp, custom_vjp  # noqa: F401
