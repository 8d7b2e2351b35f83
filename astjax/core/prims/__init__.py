"""The primitives, one module per kind (see `astjax.core.primitives`)."""
from . import (contraction, control, creation, custom, effect, elementwise, indexing,  # noqa: F401
               reduction, shape, sorting)
