"""jax.experimental's counterpart: `io_callback`."""
from astjax.callbacks import io_callback  # noqa: F401

__all__ = ["io_callback"]
