"""One activation of a user function while the interpreter evaluates it, and the ways out of
one: `Frame` holds its locals; `Return`, `Break` and `Continue` unwind the statements of a
frame (raised by the statement handlers, caught by the call or the loop they leave)."""
from .values import UserFunction


class Frame:
    """One activation of a user function: its locals and where its free names come from."""

    def __init__(self, function: UserFunction):
        self.function = function
        self.env: dict = {}

    @property
    def file(self):
        return self.function.source.file

    def for_comprehension(self) -> "Frame":
        """A frame for a comprehension inside this one: it sees this frame's locals, and the
        names its `for` clauses bind stay its own (as Python's comprehension scope)."""
        inner = Frame(self.function)
        inner.env = dict(self.env)
        return inner


class Return(Exception):
    """`return value`: leaves the frame's function."""

    def __init__(self, value):
        self.value = value


class Break(Exception):
    """`break` out of a static loop (the rewriters turn the others into flags)."""


class Continue(Exception):
    """`continue` in a static loop."""
