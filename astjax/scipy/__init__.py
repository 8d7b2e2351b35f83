"""astjax.scipy: the parts of `jax.scipy` astjax provides (`fft`, `integrate`, `linalg`,
`ndimage`, `optimize`, `signal`, `special`, `stats`)."""
from . import fft, integrate, linalg, ndimage, optimize, signal, special, stats  # noqa: F401
