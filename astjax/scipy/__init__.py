"""astjax.scipy: the parts of `jax.scipy` astjax provides (`integrate`, `linalg`, `optimize`,
`special`, `stats`)."""
from . import integrate, linalg, optimize, special, stats  # noqa: F401
