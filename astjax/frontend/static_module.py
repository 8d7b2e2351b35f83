"""A module's globals as far as they are known without running it: what `astjax transform`
compiles functions against.

- `import`s of the libraries a numerical program uses (NumPy, SciPy, math, functools, ...) are
  those libraries; JAX's modules are astjax's (as `import jax` under the import hook).
- Module-level `def`s are user functions, interpreted from their source as always.
- Assignments of literals (numbers, strings, tuples of them) are those values.
- Anything else (the user's own modules, values computed when the module runs) is `Unknown`:
  reading it while a function is compiled is an error naming the line that defines it, and
  that function is compiled at its first call instead.

Nothing of the user's file is imported or executed.
"""
import ast
import importlib

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ..errors import AstjaxError
from .check import check_function
from .source import FunctionSource, ParsedFile, rewritten
from .values import UserFunction

# Libraries importing is safe (not the user's code) and that compiled functions use.
LIBRARIES = ("numpy", "scipy", "math", "cmath", "functools", "itertools", "operator",
             "collections", "typing", "dataclasses", "enum", "numbers", "astjax", "jax")


class StaticValueError(AstjaxError):
    """A compiled function reads a global whose value exists only when the module runs."""


class Unknown:
    """A global whose value only running the module would give."""

    def __init__(self, name: str, loc):
        self._name, self._loc = name, loc

    def error(self) -> StaticValueError:
        return StaticValueError(
            f"{self._name!r} (defined at {self._loc.file}:{self._loc.line}) gets its value when "
            "the module runs, which `astjax transform` never does",
            hint="this function is compiled at its first call instead; to generate it ahead "
                 "of time, make the value a literal or pass it as an argument")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise self.error()

    def __call__(self, *args, **kwargs):
        raise self.error()

    def __repr__(self):
        return f"<value of {self._name} known when the module runs>"


class StaticFunction(UserFunction):
    """A module-level def known from source: interpreted by whichever interpreter is active,
    checked by the fence when it is first called (a def no compiled function calls may use
    anything Python allows)."""
    checked = False

    def __call__(self, *args, **kwargs):
        from .interpreter import active_interpreter
        if not self.checked:
            check_function(self.original)
            self.checked = True
        return active_interpreter().call_user(self, args, kwargs)


def static_namespace(parsed: ParsedFile) -> dict:
    """The module's globals known statically (see the module docstring)."""
    namespace: dict = {"__name__": "__astjax_static__"}
    for stmt in parsed.module.body:
        if isinstance(stmt, cst.FunctionDef):
            namespace[stmt.name.value] = _function(parsed, stmt, namespace)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _statement(parsed, small, namespace)
        else:  # if / for / class / try ... at module level: what they bind is unknown
            for name in _bound_names(stmt):
                namespace[name] = Unknown(name, parsed.loc(stmt))
    return namespace


def _function(parsed: ParsedFile, node: cst.FunctionDef, namespace: dict) -> StaticFunction:
    source = FunctionSource(parsed, node, node.name.value)
    defaults = {}
    params = node.params
    for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
        if p.default is not None:
            defaults[p.name.value] = _literal(parsed, p.default, p.name.value)
    fn = StaticFunction(rewritten(source), namespace, None, {}, defaults)
    fn.original = source
    return fn


def _statement(parsed: ParsedFile, small, namespace: dict) -> None:
    if isinstance(small, cst.Import):
        for alias in small.names:
            name = get_full_name_for_node(alias.name)
            module = _library(name)
            if alias.asname is not None:
                bound = alias.asname.name.value
                namespace[bound] = module if module is not None else Unknown(bound, parsed.loc(small))
            else:
                top = name.split(".")[0]
                namespace[top] = _library(top) or Unknown(top, parsed.loc(small))
    elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        module = _library(get_full_name_for_node(small.module))
        names = small.names if not isinstance(small.names, cst.ImportStar) else []
        for alias in names:
            attr = get_full_name_for_node(alias.name)
            bound = alias.asname.name.value if alias.asname else attr
            value = getattr(module, attr, None) if module is not None else None
            if value is None and module is not None:
                value = _library(f"{module.__name__}.{attr}")
            namespace[bound] = value if value is not None else Unknown(bound, parsed.loc(small))
    elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) \
            else [small.target]
        for target in targets:
            if isinstance(target, cst.Name):
                namespace[target.value] = _literal(parsed, small.value, target.value)
            else:
                for name in _bound_names(target):
                    namespace[name] = Unknown(name, parsed.loc(small))


def _library(name: str):
    """The module `name` (JAX's names meaning astjax's) when it is a library, else None."""
    if name.split(".")[0] not in LIBRARIES:
        return None
    if name == "jax" or name.startswith("jax."):
        name = "ast" + name
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _literal(parsed: ParsedFile, node, name: str):
    """The value of a literal expression (1.5, "x", (1, 2), -3); Unknown for anything else."""
    code = cst.Module(body=[]).code_for_node(node)
    try:
        return ast.literal_eval(code)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return Unknown(name, parsed.loc(node))


def _bound_names(node) -> list:
    """Names a statement or target binds at module level (as far as a simple walk sees)."""
    names = []

    class Binder(cst.CSTVisitor):
        def visit_AssignTarget(self, n):
            names.extend(_names_in(n.target))

        def visit_For(self, n):
            names.extend(_names_in(n.target))

        def visit_FunctionDef(self, n):
            names.append(n.name.value)
            return False

        def visit_ClassDef(self, n):
            names.append(n.name.value)
            return False

    if isinstance(node, cst.BaseExpression):
        return _names_in(node)
    node.visit(Binder())
    return names


def _names_in(target) -> list:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names_in(e.value)]
    return []
