"""Errors raised for the user's mistakes. Each names the user's file:line:col, shows the line and
says what to write instead; none of them is an internal error of astjax."""
import linecache
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class SourceLoc:
    """A position in the user's source: 1-based line, 0-based column (as editors print +1)."""
    file: str
    line: int
    col: int = 0

    def text(self) -> str:
        return linecache.getline(self.file, self.line).rstrip("\n")

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


class AstjaxError(Exception):
    """Base of every error astjax raises about user code."""

    def __init__(self, message: str, loc: Optional[SourceLoc] = None, hint: Optional[str] = None):
        self.message, self.loc, self.hint = message, loc, hint
        super().__init__(self._format())

    def _format(self) -> str:
        if self.loc is None:
            head = self.message
        else:
            head = f"{self.loc}: {self.message}"
            line = self.loc.text()
            if line:
                stripped = line.lstrip()
                caret_at = max(self.loc.col - (len(line) - len(stripped)), 0)
                head += f"\n    {stripped}\n    {' ' * caret_at}^"
        if self.hint:
            head += f"\n  hint: {self.hint}"
        return head

    def at(self, loc: Optional[SourceLoc]) -> "AstjaxError":
        """The same error placed at loc, when it was raised without a position."""
        if self.loc is not None or loc is None:
            return self
        err = type(self)(self.message, loc, self.hint)
        err.__cause__ = self.__cause__
        return err


class SourceUnavailableError(AstjaxError):
    """The function has no source file (REPL, exec, a builtin)."""


class UnsupportedSyntaxError(AstjaxError):
    """try/with/yield/async/class definitions and other syntax outside the supported subset."""


class ImpurityError(AstjaxError):
    """Mutation of state outside the function, or I/O."""


class UndefinedNameError(AstjaxError):
    """A name that is bound nowhere."""


class ConcretizationError(AstjaxError):
    """An array value used where a static Python value is needed."""


class ShapeError(AstjaxError):
    """Shapes that do not fit an operation."""


class DtypeError(AstjaxError):
    """Dtypes that do not fit an operation."""


class ControlFlowError(AstjaxError):
    """Array-dependent control flow that cannot be converted as written."""


class StaticArgumentError(AstjaxError):
    """A static argument that cannot serve as one (unhashable), or a non-array dynamic argument."""


class TransformError(AstjaxError):
    """A transformation asked for something it cannot do (no rule for a primitive, bad axes)."""


# JAX's names for its errors, for programs that catch them (`except jax.errors.X:`). Those about
# needing a concrete value are astjax's ConcretizationError (JAX's are its subclasses).
ConcretizationTypeError = TracerBoolConversionError = ConcretizationError
TracerIntegerConversionError = TracerArrayConversionError = ConcretizationError
NonConcreteBooleanIndexError = ConcretizationError
InconclusiveDimensionOperation = ShapeError


class UnexpectedTracerError(AstjaxError):
    """JAX's error for a tracer that leaked out of its transformation. astjax traces nothing,
    so it never raises it; programs may still name it."""


class KeyReuseError(AstjaxError):
    """JAX's error for a random key used twice (under its key-reuse checker, which astjax does
    not have: never raised)."""


def __getattr__(name: str):
    if name == "JaxRuntimeError":  # jaxlib's own: what a failing XLA computation raises
        try:
            from jaxlib._jax import JaxRuntimeError
        except ImportError:
            return RuntimeError
        return JaxRuntimeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
