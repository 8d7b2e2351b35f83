"""astjax: JAX's programming model by static source-to-source compilation."""
from .errors import AstjaxError  # noqa: F401
