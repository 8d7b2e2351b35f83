"""jax.experimental's counterpart: `io_callback`, and `ode.odeint` in its submodule."""
from astjax.callbacks import io_callback  # noqa: F401

__all__ = ["io_callback"]
