"""astjax.scipy: the parts of `jax.scipy` astjax provides (`linalg`, `special`, `stats`)."""
from . import linalg, special, stats  # noqa: F401
