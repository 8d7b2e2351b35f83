"""astjax.scipy: the parts of `jax.scipy` astjax provides (`linalg`)."""
from . import linalg  # noqa: F401
