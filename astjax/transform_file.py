"""One source file in, one importable generated module out, statically (nothing is run).

`generate(text, path)` returns the module `astjax transform` writes for the file at `path`:

1. a header comment naming `path` and listing the transformations found (see
   `astjax.frontend.discover`) with their source lines;
2. the file's code with its JAX imports pointing at astjax (`import jax.numpy as jnp` ->
   `import astjax.numpy as jnp`, `import jax` -> `import astjax as jax`, `from jax import lax` ->
   `from astjax import lax`; other imports, NumPy's included, stay as written);
3. above each transformed function (or, for a transformed lambda, the assignment) a comment
   `# astjax: <transformation> of <name> (from <path>:<line>)`.

A transformation whose function has a signature (jaxtyping annotations in the source, or
`--signature` on the command line: see `astjax.signatures`) is compiled ahead of time: its
decorated def or assignment is replaced by the generated code (`astjax.ahead_of_time`), which
needs only NumPy and astjax's small runtime to run. The others keep their decorators and
assignments as written: once the imports refer to astjax, they apply astjax's transformations,
which compile each function at its first call. The header says which is which.
"""
import os
from dataclasses import dataclass, field

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from .ahead_of_time import compile_ahead
from .errors import AstjaxError
from .frontend.discover import discover
from .frontend.source import parse_text
from .frontend.static_module import static_namespace
from .signatures import from_annotations, parse_signature

# JAX modules with an astjax counterpart of the same name under `astjax`.
JAX_MODULES = ("jax", "jax.numpy", "jax.numpy.linalg", "jax.lax", "jax.nn",
               "jax.tree_util", "jax.debug", "jax.random")


@dataclass
class Generated:
    code: str
    transformations: list
    warnings: list  # "path:line:col: warning: ..." lines
    ahead: dict = field(default_factory=dict)  # transformation -> its code compiled ahead


def generate(text, path: str, signatures: dict = None, backend: str = "numpy") -> Generated:
    """The generated module for the source `text` (str, or bytes decoded as Python does) read
    from `path` (named in comments and messages). `signatures` maps a function's name to a
    signature text (`--signature`). Raises libcst.ParserSyntaxError on invalid Python."""
    module = cst.parse_module(text)
    wrapper = MetadataWrapper(module)
    found = discover(wrapper)
    used = _UsedSubmodules()
    wrapper.visit(used)
    bound = _module_names(wrapper.module)
    names = {"lax": "lax" if "lax" not in bound else "lax_",
             "np": "np" if bound.get("np", "numpy") == "numpy" else "np_"}
    ahead, notes = _compile_ahead(module.code, path, wrapper.module, found, signatures or {},
                                  names, backend)
    rewriter = _Rewriter(path, found, sorted(used.modules), ahead, names, bound)
    out = wrapper.visit(rewriter)
    out = out.with_changes(header=_with_header(out.header, path, found, ahead))
    return Generated(out.code, found, rewriter.warnings + notes +
                     _availability_warnings(path, found), ahead)


def _compile_ahead(text, path, module, found, signatures, names, backend) -> tuple:
    """({transformation: Ahead} for those with a signature, notes on the others)."""
    ahead, notes, namespace = {}, [], None
    taken = set(_module_names(module)) | _assigned_names(module)
    for t in found:
        node = _def_named(module, t.target)
        try:
            if t.target in signatures:
                signature = parse_signature(signatures[t.target], _param_names(node))
            else:
                signature = from_annotations(node) if node is not None else None
            if signature is None:
                continue
            namespace = namespace or static_namespace(parse_text(path, text))
            label = f"{t.describe()} ({os.path.basename(path)}:{t.line})"
            ahead[t] = compile_ahead(namespace[t.target], [(s.kind, s.options) for s in t.steps],
                                     signature, t.bound_to or t.target, label,
                                     lax=names["lax"], np_name=names["np"], taken=taken,
                                     backend=backend)
        except AstjaxError as err:
            notes.append(f"{path}:{t.line}:{t.column + 1}: note: {t.describe()} is compiled at "
                         f"its first call: {err.message}")
    return ahead, notes


def _def_named(module: cst.Module, name: str):
    defs = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return defs[-1] if defs else None


def _param_names(node) -> list:
    if node is None:
        return []
    return [p.name.value for p in list(node.params.posonly_params) + list(node.params.params)]


def _assigned_names(module: cst.Module) -> set:
    """Names a module-level statement assigns (`predict = jax.jit(logistic)`, `W = ...`)."""
    targets = m.findall(module, m.AssignTarget(target=m.Name()) | m.AnnAssign(target=m.Name()))
    return {t.target.value for t in targets}


def _module_names(module: cst.Module) -> dict:
    """Module-level names and, for imports, the module each stands for."""
    names = {}
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            names[stmt.name.value] = None
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = get_full_name_for_node(alias.name)
                    bound = alias.asname.name.value if alias.asname else full.split(".")[0]
                    names[bound] = full if alias.asname else full.split(".")[0]
            elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    names[(alias.asname.name.value if alias.asname
                           else get_full_name_for_node(alias.name))] = None
            elif isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        names[target.target.value] = None
    return names


def astjax_module(name: str):
    """`jax.numpy` -> `astjax.numpy`; None when `name` is no JAX module or has no counterpart."""
    return "ast" + name if name in JAX_MODULES else None


def _is_jax(name: str) -> bool:
    return name == "jax" or name.startswith("jax.")


class _UsedSubmodules(cst.CSTVisitor):
    """JAX submodules reached as attributes (`jax.lax.cond` after `import jax`): JAX imports
    them with the package, astjax needs them imported by name."""
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self):
        super().__init__()
        self.modules = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        for q in self.get_metadata(QualifiedNameProvider, node, set()):
            if q.name in JAX_MODULES and q.name != "jax":
                self.modules.add(q.name)


class _Rewriter(cst.CSTTransformer):
    """Points JAX imports at astjax and comments each transformed function."""
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, path: str, found: list, submodules: list, ahead: dict, names: dict,
                 bound: dict):
        super().__init__()
        self.path, self.submodules, self.warnings = path, submodules, []
        self.ahead, self.names, self.bound = ahead, names, bound
        self.annotations_only = False
        self.comments = {}  # id(anchor node) -> comment texts
        self.replaced = {}  # id(decorated def) or assignment line -> generated statements
        for t in found:
            if t in ahead:
                key = id(t.anchor) if t.form == "decorator" else ("line", t.line)
                self.replaced.setdefault(key, []).extend(_statements(ahead[t].source))
                continue
            text = f"# astjax: {t.describe()} (from {path}:{t.line})"
            text += f" -> {t.bound_to}" if t.bound_to else ""
            self.comments.setdefault(id(t.anchor), []).append(text)

    def leave_Import(self, original_node, updated_node):
        aliases = []
        for alias in updated_node.names:
            aliases.extend(self._import_aliases(original_node, alias))
        aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(names=aliases)

    def _import_aliases(self, node, alias: cst.ImportAlias) -> list:
        name = get_full_name_for_node(alias.name)
        ours = self._counterpart(node, name)
        if ours is None:
            return [alias]
        renamed = alias.with_changes(name=cst.parse_expression(ours))
        if alias.asname is not None or "." not in name:
            # `import jax` binds jax: keep that name for astjax.
            return [renamed.with_changes(asname=alias.asname or _as_name(name))]
        # `import jax.numpy` binds `jax` with `jax.numpy` loaded: import both under astjax.
        return [renamed.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.ImportAlias(name=cst.Name("astjax"), asname=_as_name("jax"),
                                comma=alias.comma)]

    def leave_ImportFrom(self, original_node, updated_node):
        if updated_node.relative or updated_node.module is None:
            return updated_node
        ours = self._counterpart(original_node, get_full_name_for_node(updated_node.module))
        if ours is None:
            return updated_node
        return updated_node.with_changes(module=cst.parse_expression(ours))

    def _counterpart(self, node, name: str):
        """The astjax module for JAX module `name`; None (with a warning) when there is none."""
        if not _is_jax(name):
            return None
        ours = astjax_module(name)
        if ours is None:
            pos = self.get_metadata(PositionProvider, node).start
            self.warnings.append(f"{self.path}:{pos.line}:{pos.column + 1}: warning: {name} has "
                                 f"no astjax counterpart; this import is left as written")
        return ours

    def leave_SimpleStatementLine(self, original_node, updated_node):
        line = self.get_metadata(PositionProvider, original_node).start.line
        if ("line", line) in self.replaced:
            return cst.FlattenSentinel(self.replaced[("line", line)])
        if _imports_jaxtyping(original_node):
            self.annotations_only = True  # jaxtyping's names are needed by annotations only
            return cst.Try(body=cst.IndentedBlock(body=[updated_node]),
                           handlers=[cst.ExceptHandler(
                               body=cst.IndentedBlock(body=[cst.parse_statement("pass\n")]),
                               type=cst.Name("ImportError"))],
                           leading_lines=updated_node.leading_lines)
        updated_node = self._commented(original_node, updated_node)
        if not self.submodules or not any(map(_binds_jax_package, original_node.body)):
            return updated_node
        submodules, self.submodules = self.submodules, []  # once is enough
        # After `import jax`, `jax.lax.cond` must work as in JAX: load the submodules it uses.
        extra = cst.parse_statement(
            f"import {', '.join('ast' + name for name in submodules)}"
            f"  # loaded for {', '.join(submodules)} below\n")
        return cst.FlattenSentinel([updated_node, extra])

    def leave_FunctionDef(self, original_node, updated_node):
        if id(original_node) in self.replaced:
            return cst.FlattenSentinel(self.replaced[id(original_node)])
        return self._commented(original_node, updated_node)

    def leave_Module(self, original_node, updated_node):
        """The imports the code compiled ahead of time needs, after the module's own; with
        jaxtyping optional, annotations are not evaluated (PEP 563)."""
        if self.annotations_only:
            updated_node = _future_annotations(updated_node)
        if not self.ahead:
            return updated_node
        lax, np_name = self.names["lax"], self.names["np"]
        lines = [f"from astjax.backends.numpy.runtime import lax{'' if lax == 'lax' else ' as ' + lax}",
                 "from astjax.backends.numpy.signature_check import check_arguments"]
        if self.bound.get(np_name) != "numpy":
            lines.append(f"import numpy as {np_name}")
        body = list(updated_node.body)
        last = max((i for i, stmt in enumerate(body) if _is_import(stmt)), default=-1)
        extra = [cst.parse_statement(line + "\n") for line in lines]
        return updated_node.with_changes(body=body[:last + 1] + extra + body[last + 1:])

    def _commented(self, original_node, updated_node):
        comments = self.comments.get(id(original_node))
        if not comments:
            return updated_node
        lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in comments]
        return updated_node.with_changes(leading_lines=[*updated_node.leading_lines, *lines])


def _statements(source: str) -> list:
    """The statements of generated code, its leading comments kept, set off by blank lines."""
    module = cst.parse_module(source)
    first, rest = module.body[0], module.body[1:]
    blank = [cst.EmptyLine(indent=False)] * 2
    first = first.with_changes(leading_lines=blank + list(module.header) + list(first.leading_lines))
    return [first] + list(rest)


def _imports_jaxtyping(line) -> bool:
    for small in line.body:
        if isinstance(small, cst.Import) and any(
                get_full_name_for_node(a.name).split(".")[0] == "jaxtyping" for a in small.names):
            return True
        if isinstance(small, cst.ImportFrom) and small.module is not None and \
                get_full_name_for_node(small.module).split(".")[0] == "jaxtyping":
            return True
    return False


def _future_annotations(module: cst.Module) -> cst.Module:
    """`from __future__ import annotations` first (after the docstring), unless present."""
    body = list(module.body)
    for stmt in body:
        if m.matches(stmt, m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name("__future__"))])):
            if "annotations" in cst.Module(body=[stmt]).code:
                return module
    docstring = 1 if body and m.matches(body[0], m.SimpleStatementLine(
        body=[m.Expr(value=m.SimpleString() | m.ConcatenatedString())])) else 0
    future = cst.parse_statement("from __future__ import annotations\n")
    return module.with_changes(body=body[:docstring] + [future] + body[docstring:])


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and \
        all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _binds_jax_package(stmt) -> bool:
    """`import jax`, `import jax as j`, `import jax.numpy`: a name bound to the package."""
    if not m.matches(stmt, m.Import()):
        return False
    for alias in stmt.names:
        name = get_full_name_for_node(alias.name)
        if name == "jax" or (alias.asname is None and _is_jax(name)):
            return True
    return False


def _as_name(name: str) -> cst.AsName:
    return cst.AsName(name=cst.Name(name))


def _with_header(header: list, path: str, found: list, ahead: dict) -> list:
    """The module's leading lines with the generated-file header after any `#!` line."""
    keep = list(header[:1]) if header and header[0].comment and \
        header[0].comment.value.startswith("#!") else []
    lines = [f"# Generated by `astjax transform` from {path}: edit that file, not this one.",
             "# JAX imports refer to astjax. Transformations found: those with a signature are",
             "# compiled ahead of time below; astjax compiles the others at their first call,",
             "# when the arguments' shapes and dtypes are known:"]
    lines += [f"#   {path}:{t.line}  {t.describe()}" + (f"  -> {t.bound_to}" if t.bound_to else "")
              + ("  [generated below]" if t in ahead else "  [compiled at first call]")
              for t in found] or ["#   (none)"]
    comments = [cst.EmptyLine(indent=False, comment=cst.Comment(line)) for line in lines]
    return keep + comments + [cst.EmptyLine(indent=False)] + list(header[len(keep):])


def _availability_warnings(path: str, found: list) -> list:
    """Transformations this astjax does not provide yet: the generated module would fail."""
    import astjax
    missing = {}
    for t in found:
        for kind in t.kinds:
            if not hasattr(astjax, kind):
                missing.setdefault(kind, t)
    return [f"{path}:{t.line}:{t.column + 1}: warning: astjax.{kind} is not available in this "
            f"version of astjax; the generated module fails where it applies it"
            for kind, t in missing.items()]

