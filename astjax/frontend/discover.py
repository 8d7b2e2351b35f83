"""Finding, without running anything, the transformations a source file asks for.

A transformation is found wherever the file applies `jit`, `grad`, `value_and_grad`, `vmap`,
`jacfwd`, `jacrev` or `hessian` of astjax, or of jax (which astjax stands in for), named through the file's own imports:

    @jax.jit  |  @jit  |  @jax.jit(static_argnums=1)  |  @partial(jax.jit, static_argnums=1)
    def f(...): ...                                               form "decorator" (any def)

    g = jax.jit(f)  |  jax.jit(f, static_argnums=(1,))  |  jax.jit(jax.grad(f))
    g = jax.jit(static_argnums=1)(f)  |  partial(jax.jit, static_argnums=1)(f)
                                                                  form "assignment" (module scope)

Names are resolved with libcst's QualifiedNameProvider, so `import astjax as jax`,
`from astjax import jit as compile` and `import jax` all count, while a local function that
happens to be called `jit` does not. Stacked decorators make one transformation, outermost first,
as a nested call does.
"""
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst
import libcst.matchers as m
from libcst.metadata import (GlobalScope, MetadataWrapper, PositionProvider, QualifiedNameProvider,
                             ScopeProvider)

KINDS = ("jit", "grad", "value_and_grad", "vmap", "jacfwd", "jacrev", "hessian")
PACKAGES = ("astjax", "jax")
_PARTIAL = "functools.partial"


@dataclass(frozen=True)
class Step:
    """One transformation applied: its kind and the source text of its other arguments."""
    kind: str
    options: tuple = ()  # e.g. ("static_argnums=(1,)",)

    def __str__(self) -> str:
        return f"{self.kind}({', '.join(self.options)})" if self.options else self.kind


@dataclass(frozen=True)
class Transformation:
    """`steps` (outermost first) applied to the function `target` at `line`:`column`."""
    steps: tuple
    target: str  # the function as written: a name, or the source of a lambda or attribute
    line: int
    column: int  # 0-based, as libcst counts
    form: str  # "decorator" or "assignment"
    bound_to: Optional[str] = None  # the name an assignment binds
    # The statement the generated module comments: the transformed def when the file has it.
    anchor: Optional[cst.CSTNode] = field(default=None, compare=False, repr=False)

    @property
    def kinds(self) -> tuple:
        return tuple(step.kind for step in self.steps)

    def describe(self) -> str:
        """E.g. 'jit(static_argnums=1) of grad of loss'."""
        return " of ".join([str(step) for step in self.steps] + [self.target])


def discover(wrapper: MetadataWrapper) -> list:
    """The transformations in the wrapped module, in source order."""
    finder = _Finder()
    wrapper.visit(finder)
    return sorted(finder.found, key=lambda t: (t.line, t.column))


def discover_source(text: str) -> list:
    """`discover` on source text (raises libcst.ParserSyntaxError on invalid Python)."""
    return discover(MetadataWrapper(cst.parse_module(text)))


class _Finder(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider, QualifiedNameProvider, ScopeProvider)

    def __init__(self):
        super().__init__()
        self.found = []
        self.defs = {}  # module-level def name -> its FunctionDef nodes, in order

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if isinstance(self.get_metadata(ScopeProvider, node), GlobalScope):
            self.defs.setdefault(node.name.value, []).append(node)
        found = [(d, self._step(d.decorator)) for d in node.decorators]
        found = [(d, step) for d, step in found if step is not None]
        if found:
            pos = self.get_metadata(PositionProvider, found[0][0]).start
            steps = tuple(step for _, step in found)
            self.found.append(Transformation(steps, node.name.value, pos.line, pos.column,
                                             "decorator", anchor=node))

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if not isinstance(self.get_metadata(ScopeProvider, node), GlobalScope):
            return
        for stmt in node.body:
            if m.matches(stmt, m.Assign() | m.AnnAssign(value=m.DoNotCare())) and stmt.value:
                self._assignment(node, stmt)

    def _assignment(self, line: cst.SimpleStatementLine, stmt) -> None:
        applied = self._application(stmt.value)
        if applied is None:
            return
        steps, function = applied
        targets = [t.target for t in stmt.targets] if m.matches(stmt, m.Assign()) else [stmt.target]
        pos = self.get_metadata(PositionProvider, stmt).start
        target = _code(function)
        anchor = self._def_before(target, pos.line) or line
        self.found.append(Transformation(tuple(steps), target, pos.line, pos.column, "assignment",
                                         bound_to=" = ".join(map(_code, targets)), anchor=anchor))

    def _def_before(self, name: str, line: int):
        """The last module-level `def name` above `line`: the function an assignment transforms."""
        defs = [d for d in self.defs.get(name, ())
                if self.get_metadata(PositionProvider, d).start.line < line]
        return defs[-1] if defs else None

    def _application(self, expr):
        """`(steps, function)` when `expr` applies transformations to a function, as in
        `jax.jit(f, static_argnums=1)`, `jax.jit(static_argnums=1)(f)`, `jax.jit(jax.grad(f))`;
        None otherwise (including a transformation applied and then called: `jax.jit(f)(x)`)."""
        if not m.matches(expr, m.Call()) or not expr.args or not _positional(expr.args[0]):
            return None
        kind = self._kind(expr.func)
        if kind is not None:
            step = Step(kind, _texts(expr.args[1:]))
        else:
            step = self._step(expr.func)
            if step is None:
                return None
            step = Step(step.kind, step.options + _texts(expr.args[1:]))
        function = expr.args[0].value
        inner = self._application(function)
        if inner is None:
            return [step], function
        return [step] + inner[0], inner[1]

    def _step(self, expr) -> Optional[Step]:
        """The transformation `expr` stands for as a decorator: `jax.jit`,
        `jax.jit(static_argnums=1)` or `partial(jax.jit, static_argnums=1)`; None otherwise."""
        kind = self._kind(expr)
        if kind is not None:
            return Step(kind)
        if not m.matches(expr, m.Call()):
            return None
        kind = self._kind(expr.func)
        if kind is not None:
            # jax.jit(f) applies jit; only keyword arguments make a decorator factory.
            return None if any(map(_positional, expr.args)) else Step(kind, _texts(expr.args))
        if self._names(expr.func) & {_PARTIAL} and expr.args and _positional(expr.args[0]):
            kind = self._kind(expr.args[0].value)
            if kind is not None:
                return Step(kind, _texts(expr.args[1:]))
        return None

    def _kind(self, expr) -> Optional[str]:
        """'jit', 'grad', ... when `expr` names that transformation of astjax or jax."""
        for name in self._names(expr):
            package, _, short = name.rpartition(".")
            if package in PACKAGES and short in KINDS:
                return short
        return None

    def _names(self, expr) -> set:
        if not m.matches(expr, m.Name() | m.Attribute()):
            return set()
        return {q.name for q in self.get_metadata(QualifiedNameProvider, expr, set())}


def _positional(arg: cst.Arg) -> bool:
    return arg.keyword is None and arg.star == ""


def _texts(args) -> tuple:
    return tuple(_code(cst.ensure_type(a, cst.Arg).with_changes(comma=cst.MaybeSentinel.DEFAULT))
                 for a in args)


def _code(node: cst.CSTNode) -> str:
    """The node's source on one line: it is shown in one-line comments and messages."""
    return " ".join(cst.Module(body=[]).code_for_node(node).split())
