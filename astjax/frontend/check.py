"""The fence: rejects impure or unsupported code before it is specialised, with its position.

`check_function` walks a user function (nested defs and lambdas included) in source order and
raises for the first of:

- syntax outside the supported subset: try, with, class, match, yield, await, async def/for/with,
  `del x[i]`, star imports (`UnsupportedSyntaxError`);
- changes to state the function does not own: global/nonlocal, attribute assignment, item
  assignment and mutating methods (`append`, `update`, ...) on a parameter, global or closure
  variable, item assignment on a local that another name aliases (`ImpurityError`);
- I/O: print, open, input, exec, eval, breakpoint, and calls into os, sys, io, subprocess,
  shutil, pathlib, logging, time, random, pickle (`ImpurityError`);
- names bound nowhere, found with libcst's ScopeProvider; skipped for files with a star import
  (`UndefinedNameError`).

It runs once per function source: results are cached per file digest and node. What depends on
argument values (recursion on arrays, `math.sin` given an array) is the interpreter's to detect.

The tables of what is refused (MUTATING_METHODS, IO_BUILTINS, UNSUPPORTED_SYNTAX, REBINDING)
and the wording of the refusals are public: the interpreter refuses with the same words what
only it can see (`p = print; p(x)`, a method call on a container reached through an expression,
an attribute as a comprehension's target), so a mistake reads the same whichever finds it.
"""
import dataclasses
import os
import re

import libcst as cst
import libcst.matchers as m
from libcst.metadata import ExpressionContext
from libcst.metadata.scope_provider import (BuiltinAssignment, ComprehensionScope, GlobalScope,
                                            ImportAssignment, QualifiedNameSource)

from ..errors import ImpurityError, UndefinedNameError, UnsupportedSyntaxError
from .source import FunctionSource, ParsedFile

MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update",
                    "setdefault", "popitem", "add", "discard", "sort", "reverse"}
# What the interpreter suggests for a container it finds, at run time, the function does not own
NOT_OWNED_CONTAINER_HINT = "build a new container (e.g. xs + [v]) and return it"

_IO_MODULES = {"os", "sys", "io", "subprocess", "shutil", "pathlib", "logging", "time",
               "random", "pickle", "numpy.random"}

# Set by the import system, not by assignments libcst could see.
_MODULE_DUNDERS = {"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__",
                   "__builtins__", "__path__", "__cached__", "__annotations__", "__dict__"}

_PRINT_HINT = "use astjax.debug.print('x = {}', x), which prints when the compiled function runs"
_PASS_IN_HINT = "do it outside the compiled function and pass the result in as an argument"
_RANDOM_HINT = ("draw the random numbers outside the compiled function (e.g. with "
                "numpy.random.default_rng) and pass them in as an argument; astjax has no "
                "random module yet")

IO_BUILTINS = {
    "print": ("print() is I/O, which a compiled function cannot do", _PRINT_HINT),
    "open": ("open() is file I/O, which a compiled function cannot do",
             "read the file outside the compiled function and pass the data in as an argument"),
    "input": ("input() is I/O, which a compiled function cannot do",
              "ask for the value outside the compiled function and pass it in as an argument"),
    "breakpoint": ("breakpoint() cannot stop a compiled function",
                   "debug the generated code (astjax.show(f)) with pdb, or astjax.debug.print"),
    "exec": ("exec() runs code astjax cannot see, so it cannot be compiled",
             "write the code itself in the function"),
    "eval": ("eval() runs code astjax cannot see, so it cannot be compiled",
             "write the expression itself in the function"),
}

UNSUPPORTED_SYNTAX = {
    cst.Try: ("try/except is not supported in a compiled function",
              "a compiled function cannot catch errors; check values with jnp.where or lax.cond"),
    cst.TryStar: ("try/except* is not supported in a compiled function",
                  "a compiled function cannot catch errors; check values with jnp.where"),
    cst.ClassDef: ("a class definition is not supported inside a compiled function",
                   "define the class at module level"),
    cst.Match: ("match statements are not supported in a compiled function yet",
                "write it as if/elif"),
    cst.Yield: ("yield makes a generator, which cannot be compiled",
                "build a list (or stack an array) and return it; for a loop carrying state "
                "use lax.scan"),
    cst.Await: ("await is not supported in a compiled function",
                "compile a plain (non-async) function and await outside it"),
}

# global/nonlocal -> (what the statement lets the function rebind, what to write instead)
REBINDING = {
    "global": ("global variables", "return the new value instead, and assign it outside the "
                                   "function"),
    "nonlocal": ("variables of an enclosing function (nonlocal)", "return the new value instead"),
}

_AT_METHODS = {cst.AddAssign: "add", cst.SubtractAssign: "subtract",
               cst.MultiplyAssign: "multiply", cst.DivideAssign: "divide",
               cst.PowerAssign: "power"}

_METHOD_HINTS = {
    "append": "build a new list: {x} = {x} + [v] (and return it if the caller needs it)",
    "extend": "build a new list: {x} = {x} + list(more)",
    "update": "build a new dict: {x} = {{**{x}, **other}}",
    "setdefault": "build a new dict: {x} = {{**{x}, key: value}}",
    "sort": "{x} = sorted({x}) for a list, {x} = jnp.sort({x}) for an array",
    "reverse": "{x} = {x}[::-1]",
}
_RETURN_HINT = ("return the new value from the function (build it with x.at[i].set(v) for an "
                "array, {**d, key: v} for a dict) and store it outside the compiled function")
_COPY_HINT = "work on a copy you own: {x} = list({x}) (or dict/set(...)), then change that"

_NOT_OWNED = ("param", "global", "closure")

_code = cst.Module([]).code_for_node


# ------------------------------------------------------------------ entry point
class _FileResults:
    def __init__(self, file: ParsedFile):
        self.digest = file.digest
        # With a star import, or for a notebook cell (whose globals come from other cells),
        # the file alone does not say which module-level names exist.
        star_import = re.search(r"import\s*\*", file.text) is not None and \
            bool(m.findall(file.module, m.ImportFrom(names=m.ImportStar())))
        self.names_known = os.path.isfile(file.path) and not star_import
        self.results: dict = {}  # id(node) -> (node, the error or None)


_CACHE: dict = {}  # path -> _FileResults of the file's current digest


def check_function(source: FunctionSource) -> None:
    """Raise an AstjaxError subclass for the first problem in `source`'s function."""
    per_file = _CACHE.get(source.file.path)
    if per_file is None or per_file.digest != source.file.digest:
        per_file = _CACHE[source.file.path] = _FileResults(source.file)
    entry = per_file.results.get(id(source.node))
    if entry is None or entry[0] is not source.node:
        entry = per_file.results[id(source.node)] = (source.node, _first_problem(source, per_file))
    error = entry[1]
    if error is not None:
        raise type(error)(error.message, error.loc, error.hint)


def _first_problem(source: FunctionSource, per_file: _FileResults):
    fence = _Fence(source.file, source.node, check_names=per_file.names_known)
    try:
        source.node.visit(fence)
    except (ImpurityError, UndefinedNameError, UnsupportedSyntaxError) as error:
        return error
    return None


# ------------------------------------------------------------------ the walk
HOST_CALLS = {"pure_callback", "io_callback", "callback"}  # (the last as debug.callback)


def _host_functions(function) -> set:
    """The lambdas and nested defs `function` hands to a host call (jax.pure_callback,
    io_callback, debug.callback): Python runs them as they are, so they are not fenced."""
    calls = [c for c in m.findall(function, m.Call()) if c.args
             and _called_name(c.func) in HOST_CALLS]
    lambdas = {c.args[0].value for c in calls if isinstance(c.args[0].value, cst.Lambda)}
    names = {c.args[0].value.value for c in calls if isinstance(c.args[0].value, cst.Name)}
    defs = {d for d in m.findall(function, m.FunctionDef())
            if d is not function and d.name.value in names}
    return lambdas | defs


def _called_name(func) -> str:
    if isinstance(func, cst.Name):
        return func.value
    return func.attr.value if isinstance(func, cst.Attribute) else ""


class _Fence(cst.CSTVisitor):
    """Raises at the first problem; libcst visits nodes in source order."""

    def __init__(self, file: ParsedFile, function, check_names: bool):
        super().__init__()
        self.parents = _parents_within(function)
        self.file, self.names, self.function = file, _Names(file, self.parents), function
        self.check_names = check_names
        self._aliases = None
        self._modules = None
        self.host_functions = _host_functions(function)

    def _numpy_code(self) -> bool:
        """Whether the function is written against NumPy (its imported names come from numpy
        and none from jax or astjax): then an argument's items may be assigned, as NumPy
        code does, and become functional updates; code on jnp arrays keeps JAX's rule."""
        if self._modules is None:
            self._modules = _imported_roots(self.file, self.function)
        if self._modules & {"jax", "astjax"}:
            return False
        if "numpy" in self._modules:
            return True
        imports = _file_imports(self.file)  # a function naming no module: its file decides
        return "numpy" in imports and not any(i.split(".")[-1] == "numpy" and i != "numpy"
                                              for i in imports)

    def aliases(self, base) -> list:
        """The plain-name assignments pairing the local `base` with another name."""
        if self._aliases is None:  # built on demand: most functions never need it
            self._aliases = _aliases(self.file, self.function)
        return self._aliases.get((self.names.home(base), base.value), [])

    def on_visit(self, node) -> bool:
        if node in self.host_functions:  # (Python runs it, on arrays: anything goes)
            return False
        problem = unsupported_syntax(node)
        if problem is not None:
            self._fail(UnsupportedSyntaxError, node, *problem)
        return super().on_visit(node)

    def _fail(self, kind, node, message, hint):
        raise kind(message, self.file.loc(node), hint)

    # -------------------------------------------------------------- statements
    def visit_Global(self, node):
        self._fail_rebinding(node, "global")

    def visit_Nonlocal(self, node):
        self._fail_rebinding(node, "nonlocal")

    def _fail_rebinding(self, node, word: str):
        """Point at the first assignment to a name the statement declares (naming the
        statement's line); at the statement itself if nothing is assigned."""
        declared = {item.name.value for item in node.names}
        stores = [n for n in m.findall(self.function, m.Name())
                  if n.value in declared and self.file.contexts.get(n) is ExpressionContext.STORE
                  and self.file.loc(n) is not None]
        message, hint = rebinding_problem(word)
        if not stores:
            self._fail(ImpurityError, node, message, hint)
        first = min(stores, key=lambda n: (self.file.loc(n).line, self.file.loc(n).col))
        self._fail(ImpurityError, first, f"assigning {first.value!r} rebinds a {word} variable "
                   f"(declared {word} at line {self.file.loc(node).line}), which a compiled "
                   "function cannot do", hint)

    def visit_ImportFrom(self, node):
        if m.matches(node.names, m.ImportStar()):
            self._fail(UnsupportedSyntaxError, node, "star imports are not supported in a "
                       "compiled function", "import the names you use, at module level")

    def visit_Assign(self, node):
        for target in node.targets:
            self._check_target(target.target, node.value, None)

    def visit_AnnAssign(self, node):
        self._check_target(node.target, node.value, None)

    def visit_AugAssign(self, node):
        self._check_target(node.target, node.value, node.operator)

    def visit_For(self, node):
        self._check_target(node.target, None, None)

    def visit_Del(self, node):
        self._check_deleted(node.target)

    def visit_Annotation(self, node) -> bool:
        return False  # annotations are never evaluated by the compiled function

    # -------------------------------------------------------------- expressions
    def visit_Call(self, node):
        self._check_io(node)
        if m.matches(node.func, m.Attribute(attr=m.Name())) and \
                node.func.attr.value in MUTATING_METHODS and not self._functional_sort(node):
            self._check_method(node, node.func.attr.value)

    def _functional_sort(self, node: cst.Call) -> bool:
        """`y = x.sort()` is JAX's sort returning a copy; only a bare `x.sort()` sorts in place
        (list.sort returns None, so nobody uses its result)."""
        return node.func.attr.value == "sort" and \
            not m.matches(self.parents.get(node), m.Expr())

    def visit_Name(self, node):
        if self.check_names and node.value not in _MODULE_DUNDERS and \
                self.file.contexts.get(node) is ExpressionContext.LOAD and \
                self.names.kind(node) == "undefined":
            self._fail(UndefinedNameError, node, f"name {node.value!r} is not defined",
                       "define it, import it at module level, or pass it as an argument")

    # -------------------------------------------------------------- targets
    def _check_target(self, target, value, aug_op):
        if m.matches(target, m.Tuple() | m.List()):
            for element in target.elements:
                self._check_target(element.value, None, None)
        elif m.matches(target, m.StarredElement()):
            self._check_target(target.value, None, None)
        elif m.matches(target, m.Attribute()):
            self._fail(ImpurityError, target, *attribute_assignment(target))
        elif m.matches(target, m.Subscript()):
            self._check_item_update(target, value, aug_op)
        else:
            pass  # a plain name: rebinding a local is always fine

    def _check_item_update(self, target: cst.Subscript, value, aug_op):
        base = _base_name(target)
        kind = self.names.kind(base) if base is not None else "unknown"
        if kind == "param" and m.matches(target.value, m.Name()) and self._numpy_code():
            kind = "local"  # NumPy code: `x[i] = v` rebinds the local name to an updated copy
        if kind in _NOT_OWNED:
            direct = kind == "param" and m.matches(target.value, m.Name())
            self._fail(ImpurityError, target, f"{_code(target)} = ... changes "
                       f"{_describe_kind(kind, base.value)} in place, which a compiled function "
                       "cannot do (arrays are immutable, as in JAX)",
                       _at_hint(target, value, aug_op) if direct else _RETURN_HINT)
        if kind == "local" and self.aliases(base):
            self._fail_aliased(target, base, *self.aliases(base)[0])

    def _fail_aliased(self, target, base, other: str, other_node, statement):
        copy = f"{base.value} = {other}.copy()" if other_node is not None else \
            f"{other} = {base.value}.copy()"
        self._fail(ImpurityError, target, f"{_code(target)} = ... updates {base.value!r} in "
                   f"place, but {other!r} names the same value (line "
                   f"{self.file.loc(statement).line}); compiled code updates {base.value!r} only",
                   f"write {copy} there, so that each name has its own array")

    def _check_deleted(self, target):
        if m.matches(target, m.Tuple() | m.List()):
            for element in target.elements:
                self._check_deleted(element.value)
        elif m.matches(target, m.Subscript()):
            self._fail(UnsupportedSyntaxError, target, f"del {_code(target)} changes a "
                       "container in place, which a compiled function cannot do",
                       "build a new one without that item (jnp.delete(x, i) for an array, "
                       "a comprehension for a list or dict)")
        elif m.matches(target, m.Attribute()):
            self._fail(ImpurityError, target, f"del {_code(target)} changes an object the "
                       "compiled function does not own", "build a new object instead")
        else:
            pass  # del of a local name

    # -------------------------------------------------------------- calls
    def _check_io(self, node: cst.Call):
        if m.matches(node.func, m.Name()) and node.func.value in IO_BUILTINS and \
                self.names.kind(node.func) == "builtin":
            self._fail(ImpurityError, node, *IO_BUILTINS[node.func.value])
        module = self.names.io_module(node.func)
        if module is not None:
            hint = _RANDOM_HINT if module in ("random", "numpy.random") else \
                _PRINT_HINT if module == "logging" else _PASS_IN_HINT
            self._fail(ImpurityError, node, f"{_code(node.func)}() calls the {module} module, "
                       "which has side effects a compiled function cannot have", hint)

    def _check_method(self, node: cst.Call, method: str):
        receiver = node.func.value
        base = _base_name(receiver)
        kind = self.names.kind(base) if base is not None else "unknown"
        if kind in _NOT_OWNED:
            hint = _METHOD_HINTS.get(method, _COPY_HINT).format(x=base.value) \
                if kind == "param" and m.matches(receiver, m.Name()) else \
                f"return the value and call .{method}(...) outside the compiled function"
            self._fail(ImpurityError, node,
                       method_mutation(method, _describe_kind(kind, base.value)), hint)
        if kind != "local":
            return
        for other, other_node, _ in self.aliases(base):
            other_kind = self.names.kind(other_node) if other_node is not None else "local"
            if other_kind in _NOT_OWNED:
                self._fail(ImpurityError, node, f".{method}() changes {base.value!r}, which is "
                           f"{_describe_kind(other_kind, other)} under another name",
                           _COPY_HINT.format(x=base.value))


# ------------------------------------------------------------------ shared with the interpreter
def unsupported_syntax(node):
    """(message, hint) when `node` is syntax outside the supported subset, else None."""
    if getattr(node, "asynchronous", None) is not None:
        return _async_problem(node)
    return UNSUPPORTED_SYNTAX.get(type(node))


def rebinding_problem(word: str) -> tuple:
    """(message, hint) for a `global` or `nonlocal` statement (`word`)."""
    what, hint = REBINDING[word]
    return f"a compiled function cannot rebind {what}", hint


def attribute_assignment(target: cst.Attribute) -> tuple:
    """(message, hint) for assigning the attribute `target` (`obj.a = v`)."""
    return (f"assigning the attribute {_code(target)} changes an object the compiled function "
            "does not own", "build a new object and return it (e.g. dataclasses.replace(obj, "
            f"{target.attr.value}=...) or namedtuple._replace)")


def method_mutation(method: str, owner: str) -> str:
    """The message for `.method()` changing `owner` (described in words) in place."""
    return f".{method}() changes {owner} in place, which a compiled function cannot do"


def _async_problem(node):
    what = {cst.FunctionDef: "async def", cst.For: "async for", cst.With: "async with",
            cst.CompFor: "async for"}.get(type(node), "async")
    return (f"{what} is not supported in a compiled function",
            "compile a plain (non-async) function and run the async parts outside it")


def _describe_kind(kind: str, name: str) -> str:
    return {"param": f"the argument {name!r}", "global": f"the global {name!r}",
            "closure": f"{name!r} of an enclosing function"}[kind]


def _at_hint(target: cst.Subscript, value, aug_op) -> str:
    base = _code(target.value)
    index = _code(target)[len(base):]
    v = _code(value) if value is not None and len(_code(value)) <= 30 else "v"
    if aug_op is None:
        return f"write {base} = {base}.at{index}.set({v})"
    method = _AT_METHODS.get(type(aug_op))
    if method is None:
        op = _code(aug_op).strip()[:-1]
        return f"write {base} = {base}.at{index}.set({base}{index} {op} {v})"
    return f"write {base} = {base}.at{index}.{method}({v})"


def _base_name(node):
    """x for x, x[i], x.a[i], x.a.b: the variable whose value would change, None for others
    (calls, and `x.at[i]` functional updates)."""
    while m.matches(node, m.Subscript() | m.Attribute()):
        if m.matches(node, m.Attribute(attr=m.Name("at"))):
            return None
        node = node.value
    return node if m.matches(node, m.Name()) else None


# ------------------------------------------------------------------ what names mean
def _imported_roots(file: ParsedFile, function) -> set:
    """The top-level packages of the imported names `function` uses (numpy for `np.sin`)."""
    roots = set()
    for name in m.findall(function, m.Name()):
        scope = file.scopes.get(name)
        if scope is None:
            continue
        for qualified in scope.get_qualified_names_for(name):
            if qualified.source is QualifiedNameSource.IMPORT:
                roots.add(qualified.name.split(".")[0])
    return roots


def _file_imports(file: ParsedFile) -> set:
    """The dotted names of the modules the file imports (`from jax import numpy` gives
    jax.numpy)."""
    names = set()
    for node in m.findall(file.module, m.Import()):
        names.update(cst.Module([]).code_for_node(alias.name) for alias in node.names)
    for node in m.findall(file.module, m.ImportFrom()):
        if node.module is None or isinstance(node.names, cst.ImportStar):
            continue
        module = cst.Module([]).code_for_node(node.module)
        names.add(module)
        names.update(f"{module}.{alias.name.value}" for alias in node.names
                     if isinstance(alias.name, cst.Name))
    return names


def _parents_within(root: cst.CSTNode) -> dict:
    """child -> parent for the nodes under `root`, the function being checked: every
    question here is asked inside it. (libcst's ParentNodeProvider walks the whole module
    through its visitor machinery, about 40 us a node; these are the dataclass fields.)"""
    parents, stack = {}, [root]
    while stack:
        node = stack.pop()
        for field in dataclasses.fields(node):
            value = getattr(node, field.name)
            children = value if isinstance(value, (list, tuple)) else (value,)
            for child in children:
                if isinstance(child, cst.CSTNode):
                    parents[child] = node
                    stack.append(child)
    return parents


class _Names:
    """What a loaded name refers to, from libcst's ScopeProvider: 'local', 'param' (an
    argument not rebound before this point), 'global', 'closure' (a variable of an enclosing
    function), 'definition' (import, def, class), 'builtin', 'undefined', or 'unknown' (not
    an access)."""

    def __init__(self, file: ParsedFile, parents: dict):
        self.file, self.parents = file, parents
        self._summaries: dict = {}  # (read's scope, name, bindings' scope) -> their kind

    def home(self, name):
        return _home_of(self.file.scopes.get(name))

    def referents(self, name):
        """The bindings a read of `name` may see (None when `name` is not a read)."""
        scope = self.file.scopes.get(name)
        if scope is None or self.file.contexts.get(name) is not ExpressionContext.LOAD:
            return None
        if name.value in scope:
            return scope[name.value]
        dotted = self._dotted_binding(name, scope)  # `os` of `os.path.join` after import os.path
        return scope[dotted] if dotted is not None else set()

    def _dotted_binding(self, name, scope):
        """The dotted name (`os.path`) a read of `name` starts that the scope binds, if any."""
        full, node = name.value, name
        parent = self.parents.get(node)
        while isinstance(parent, cst.Attribute) and parent.value is node:
            full = f"{full}.{parent.attr.value}"
            if full in scope:
                return full
            node, parent = parent, self.parents.get(parent)
        return None

    def kind(self, name) -> str:
        refs = self.referents(name)
        if refs is None:
            return "unknown"
        if not refs:
            return "undefined"
        # A read sees the bindings of its name in one scope (its function's, or an enclosing
        # one's): classify once per name and scope of its bindings (a name rebound n times
        # and read m times would otherwise cost n * m); a parameter's rebindings are told
        # apart by where they are.
        where = next(iter(refs)).scope
        key = (id(self.file.scopes.get(name)), name.value, id(where))
        summary = self._summaries.get(key)
        if summary is None:
            own = _home_of(where) is self.home(name)
            summary = self._summaries[key] = \
                self._own(where.assignments[name.value]) if own else self._outer(refs)
        if isinstance(summary, str):
            return summary
        return "local" if self._rebound_before(summary, name) else "param"

    @staticmethod
    def _outer(refs) -> str:
        """The kind of a name bound only outside the function."""
        if any(isinstance(r, BuiltinAssignment) for r in refs):
            return "builtin"
        if all(_is_definition(r) for r in refs):
            return "definition"
        return "global" if all(isinstance(r.scope, GlobalScope) for r in refs) else "closure"

    def _own(self, bindings):
        """The kind of a name the function binds: 'definition', 'local', or, for a parameter
        also rebound in the function, per enclosing block the earliest rebinding (a rebinding
        that surely runs before an access makes it 'local')."""
        if all(_is_definition(b) for b in bindings):
            return "definition"
        if not any(isinstance(b.node, cst.Param) for b in bindings):
            return "local"
        earliest: dict = {}  # id(block) -> (line, column) of its first rebinding statement
        for b in bindings:
            if isinstance(b.node, cst.Param):
                continue
            statement, block = self._statement_and_block(b.node)
            if block is not None:
                start = self.file.positions[statement].start
                at = (start.line, start.column)
                earliest[id(block)] = min(earliest.get(id(block), at), at)
        return earliest

    def _statement_and_block(self, node):
        statement = node
        while statement is not None and \
                not isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            statement = self.parents.get(statement)
        return statement, self.parents.get(statement)

    def _rebound_before(self, earliest: dict, use) -> bool:
        """Whether a rebinding surely runs before `use`: earlier, in a block enclosing it."""
        here = self.file.positions[use].start
        node = self.parents.get(use)
        while node is not None:
            at = earliest.get(id(node))
            if at is not None and at < (here.line, here.column):
                return True
            node = self.parents.get(node)
        return False

    def io_module(self, func):
        """The I/O module a called expression belongs to (by its imports), or None."""
        scope = self.file.scopes.get(func)
        if scope is None:
            return None
        for qualified in scope.get_qualified_names_for(func):
            if qualified.source is not QualifiedNameSource.IMPORT:
                continue
            parts = qualified.name.split(".")
            for n in (2, 1):
                if ".".join(parts[:n]) in _IO_MODULES and len(parts) > 1:
                    return ".".join(parts[:n])
        return None


def _home_of(scope):
    while isinstance(scope, ComprehensionScope):
        scope = scope.parent
    return scope


def _is_definition(assignment) -> bool:
    return isinstance(assignment, ImportAssignment) or \
        m.matches(assignment.node, m.FunctionDef() | m.ClassDef())


def _aliases(file: ParsedFile, function) -> dict:
    """(home scope, name) -> [(other name, the other's loaded Name node or None, statement)]
    for every `a = b` between plain names in the function: a and b then share one value."""
    out: dict = {}
    found = m.findall(function, m.Assign(value=m.Name()) | m.AnnAssign(value=m.Name()) |
                      m.NamedExpr(value=m.Name()))
    pairs = [(t.target, s.value, s) for s in found if m.matches(s, m.Assign()) for t in s.targets]
    pairs += [(s.target, s.value, s) for s in found if not m.matches(s, m.Assign())]
    for target, value, statement in pairs:
        if not m.matches(target, m.Name()) or target.value == value.value:
            continue
        home = _home_of(file.scopes.get(target))
        out.setdefault((home, target.value), []).append((value.value, value, statement))
        out.setdefault((home, value.value), []).append((target.value, None, statement))
    return out
