"""astjax.scipy: the parts of `jax.scipy` astjax provides (`integrate`, `linalg`, `ndimage`,
`optimize`, `signal`, `special`, `stats`)."""
from . import integrate, linalg, ndimage, optimize, signal, special, stats  # noqa: F401
