"""`jax.version`: astjax's version (programs print or compare it)."""
__version__ = _version = "0.1.0.dev0"
