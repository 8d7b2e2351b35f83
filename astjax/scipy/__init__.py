"""astjax.scipy: the parts of `jax.scipy` astjax provides (`integrate`, `linalg`, `optimize`,
`signal`, `special`, `stats`)."""
from . import integrate, linalg, optimize, signal, special, stats  # noqa: F401
