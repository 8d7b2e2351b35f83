"""The primitives, one module per kind (see `astjax.core.primitives`)."""
from ..primitives import import_kinds

import_kinds(__name__)
