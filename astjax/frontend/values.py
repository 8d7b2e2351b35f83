"""What names are bound to while a function is interpreted, besides arrays and Python values."""
from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst


class Undefined:
    """A variable read before any assignment reached it on this path."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


@dataclass
class UserFunction:
    """A user function as the interpreter sees it: source, and where its free names come from.

    Calling it (from library code such as `lax.scan`, or from the interpreter) evaluates its
    source abstractly; the Python function itself is never run.
    """
    source: Any                     # FunctionSource (file + node)
    globals: dict
    enclosing: Optional[Any] = None  # the interpreter Frame a nested def/lambda was made in
    cells: dict = field(default_factory=dict)  # Python closure cells by name
    defaults: dict = field(default_factory=dict)  # parameter name -> default value
    interpreter: Any = None
    bound_self: Any = None
    python: Any = None  # the Python function itself, where there is one (see host_functions)
    problem: Any = None  # why its source cannot be compiled (an AstjaxError), raised if it is

    @property
    def node(self) -> cst.CSTNode:
        return self.source.node

    @property
    def __name__(self) -> str:
        return self.source.name

    @property
    def parameter_names(self) -> list:
        """The names of its positional parameters, as the user wrote them."""
        params = getattr(getattr(self.node, "params", None), "params", ())
        return [p.name.value for p in params]

    def __call__(self, *args, **kwargs):
        return self.interpreter.call_user(self, args, kwargs)
