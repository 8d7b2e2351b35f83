"""astjax.scipy: the parts of `jax.scipy` astjax provides (`linalg`, `optimize`, `special`,
`stats`)."""
from . import linalg, optimize, special, stats  # noqa: F401
