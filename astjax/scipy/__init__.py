"""astjax.scipy: the parts of `jax.scipy` astjax provides (`fft`, `integrate`, `linalg`,
`ndimage`, `optimize`, `signal`, `sparse.linalg`, `special`, `stats`)."""
from . import (fft, integrate, linalg, ndimage, optimize, signal, sparse,  # noqa: F401
               special, stats)
