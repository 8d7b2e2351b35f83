"""One source file in, one importable generated module out, statically (nothing is run).

`generate(text, path)` returns the module `astjax transform` writes for the file at `path`:

1. a header comment naming `path` and listing the transformations found (see
   `astjax.frontend.discover`) with their source lines;
2. the file's code with its JAX imports pointing at astjax (`import jax.numpy as jnp` ->
   `import astjax.numpy as jnp`, `import jax` -> `import astjax as jax`, `from jax import lax` ->
   `from astjax import lax`; other imports, NumPy's included, stay as written);
3. above each transformed function (or, for a transformed lambda, the assignment) a comment
   `# astjax: <transformation> of <name> (from <path>:<line>)`.

Decorators and module-level assignments are kept as written: once the imports refer to astjax,
they apply astjax's transformations, which compile each function at its first call.
"""
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from .frontend.discover import discover

# JAX modules with an astjax counterpart of the same name under `astjax`.
JAX_MODULES = ("jax", "jax.numpy", "jax.numpy.linalg", "jax.lax", "jax.nn",
               "jax.tree_util", "jax.debug")


@dataclass
class Generated:
    code: str
    transformations: list
    warnings: list  # "path:line:col: warning: ..." lines


def generate(text, path: str) -> Generated:
    """The generated module for the source `text` (str, or bytes decoded as Python does) read
    from `path` (named in comments and messages). Raises libcst.ParserSyntaxError on invalid
    Python."""
    wrapper = MetadataWrapper(cst.parse_module(text))
    found = discover(wrapper)
    used = _UsedSubmodules()
    wrapper.visit(used)
    rewriter = _Rewriter(path, found, sorted(used.modules))
    module = wrapper.visit(rewriter)
    module = module.with_changes(header=_with_header(module.header, path, found))
    return Generated(module.code, found, rewriter.warnings + _availability_warnings(path, found))


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

    def __init__(self, path: str, found: list, submodules: list):
        super().__init__()
        self.path, self.submodules, self.warnings = path, submodules, []
        self.comments = {}  # id(anchor node) -> comment texts
        for t in found:
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
        return self._commented(original_node, updated_node)

    def _commented(self, original_node, updated_node):
        comments = self.comments.get(id(original_node))
        if not comments:
            return updated_node
        lines = [cst.EmptyLine(comment=cst.Comment(text)) for text in comments]
        return updated_node.with_changes(leading_lines=[*updated_node.leading_lines, *lines])


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


def _with_header(header: list, path: str, found: list) -> list:
    """The module's leading lines with the generated-file header after any `#!` line."""
    keep = list(header[:1]) if header and header[0].comment and \
        header[0].comment.value.startswith("#!") else []
    lines = [f"# Generated by `astjax transform` from {path}: edit that file, not this one.",
             "# JAX imports refer to astjax. Transformations found (astjax compiles each one at",
             "# its first call, when the arguments' shapes and dtypes are known):"]
    lines += [f"#   {path}:{t.line}  {t.describe()}" + (f"  -> {t.bound_to}" if t.bound_to else "")
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

