"""The fence: rejects impure or unsupported code before it is specialised, with its position."""
from .source import FunctionSource


def check_function(source: FunctionSource) -> None:
    """Raise an AstjaxError subclass for the first problem in `source`'s function."""
