"""Finding a function's source: the file it came from, parsed once with libcst, and its node.

Plain and nested functions, methods and lambdas are located through their code object (first
line, and for lambdas the column of the body, from `co_positions`). Files are read through
`linecache`, so notebook cells that register their source there work too; a function with no
source at all (REPL, `exec` of a string) gets a `SourceUnavailableError`.
"""
import ast
import hashlib
import linecache
import re
import threading
from collections import ChainMap
from dataclasses import dataclass, replace

import libcst as cst
from libcst.metadata import (BaseMetadataProvider, ExpressionContext,
                             ExpressionContextProvider, MetadataWrapper, PositionProvider)
from libcst.metadata.expression_context_provider import ExpressionContextVisitor
from libcst.metadata.scope_provider import ScopeVisitor

from ..errors import SourceLoc, SourceUnavailableError


@dataclass
class ParsedFile:
    path: str
    text: str
    digest: str
    module: cst.Module
    positions: dict
    scopes: dict
    contexts: dict
    defs: dict = None  # name -> its FunctionDef nodes; lambdas: first line -> Lambda nodes
    lambdas: dict = None

    def loc(self, node) -> SourceLoc:
        pos = self.positions.get(node)
        if pos is None:
            return None
        return SourceLoc(self.path, pos.start.line, pos.start.column)


_FILES: dict = {}
# One parse per file text, whichever thread asks first: nodes are dictionary keys everywhere
# (positions, scopes, the caches below), so two parses of one text must never mix.
_LOCK = threading.RLock()


def parse_file(path: str, line: int = None) -> ParsedFile:
    """The parsed file at `path`, re-parsed only when its text changed.

    With `line`, the definition holding that line is parsed whole and every other function
    keeps only its header (its body's lines blank, line numbers unchanged): libcst's parse
    and metadata cost about 2 ms a line, so a function's first call costs what its own
    definition and the module's top level cost, not the whole file."""
    with _LOCK:
        linecache.checkcache(path)
        text = "".join(linecache.getlines(path))
        if not text:
            raise SourceUnavailableError(
                f"no source for {path}: astjax compiles functions from their source file",
                hint="define the function in a .py file (or a notebook cell) instead of exec/REPL")
        digest = hashlib.sha256(text.encode()).hexdigest()
        outline = None if line is None else _outline(path, text, digest)
        kept = "whole" if outline is None else outline.kept(line)
        cached = _FILES.get((path, kept))
        if cached is not None and cached.digest == digest:
            return cached
        parsed = _parse(path, text if outline is None else outline.text(kept), digest)
        _FILES[(path, kept)] = parsed  # (kept: a span, None for the top level, or "whole")
        return parsed


@dataclass
class _Outline:
    """A file's functions outside other functions (Python's own parser finds them, in a
    few milliseconds): what parse_file may leave out."""
    lines: list
    spans: list  # (first line with decorators, last line, body's first line, its indent,
    #               None or the definition's stand-in: (its first line, its text))

    def kept(self, line: int):
        """The span of the function holding `line` (None: the line is at the top level)."""
        return next(((first, last) for first, last, *_ in self.spans if first <= line <= last),
                    None)

    def text(self, kept) -> str:
        lines = list(self.lines)
        for first, last, body, indent, stand_in in self.spans:
            if (first, last) == kept or body is None:
                continue
            if stand_in is not None:
                start, head = stand_in
                lines[start - 1:last] = _placeholder(head, last - start + 1)
            else:
                lines[body - 1:last] = _placeholder(indent, last - body + 1)
        return "".join(lines)


def _placeholder(head: str, n_lines: int) -> list:
    """`n_lines` lines standing for left-out ones: `head` then `...` on one line, or `head`
    opening one string that spans them (one node where blank lines would be three each:
    libcst's metadata costs about 50 us a node)."""
    if n_lines == 1:
        return [head + "...\n"]
    return [head + '"""\n'] + ["\n"] * (n_lines - 2) + ['"""\n']


def _stand_in(lines: list, node, after: int):
    """A left-out definition's whole span as `def name(): ...` (its head, `def name(): `),
    from the line after `after` (the previous statement's last line: the blank and comment
    lines between are folded in): all the module's scopes need of it is the name it binds
    (a header with its parameters, decorators and the comments above it cost 30-45 nodes).
    None where a decorator could bind a name itself (an assignment expression)."""
    if any(":=" in "".join(lines[d.lineno - 1:d.end_lineno]) for d in node.decorator_list):
        return None
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    line = lines[first - 1]
    indent = line[:len(line) - len(line.lstrip())]
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    return min(after + 1, first), f"{indent}{keyword} {node.name}(): "


_OUTLINES: dict = {}  # path -> (digest, _Outline or None)


def _outline(path: str, text: str, digest: str):
    cached = _OUTLINES.get(path)
    if cached is None or cached[0] != digest:
        cached = _OUTLINES[path] = (digest, _outline_of(text))
    return cached[1]


def _outline_of(text: str):
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # libcst's parse reports it, at the user's line
        return None
    lines = text.splitlines(keepends=True)
    spans: list = []

    def visit(statements):
        after = None  # the previous statement's last line
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                body = _body_start(lines, node)
                stand_in = None if body[0] is None else \
                    _stand_in(lines, node, first - 1 if after is None else after)
                spans.append((first, node.end_lineno) + body + (stand_in,))
            else:  # class, if, try, with, for, match: functions may sit inside
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    visit(getattr(node, field, None) or ())
            after = getattr(node, "end_lineno", None)  # (a match_case has no lines)

    visit(tree.body)
    return _Outline(lines, spans)


def _body_start(lines: list, node) -> tuple:
    """(first line of the body, its indent), or (None, None) where the body cannot be left
    out: it starts on the header's line, or it declares a `global` (which binds a module
    name the top level's scope must see)."""
    first = node.body[0]
    line = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", ())])
    prefix = lines[line - 1].encode()[:first.col_offset]  # (offsets count bytes)
    body = "".join(lines[line - 1:node.end_lineno])
    if prefix.strip() or re.search(r"^\s*global\s", body, re.MULTILINE):
        return None, None
    return line, prefix.decode()


def parse_text(path: str, text: str) -> ParsedFile:
    """`text` parsed as the file at `path` (for source that is not read from disk here)."""
    return _parse(path, text, hashlib.sha256(text.encode()).hexdigest())


class ContextProvider(BaseMetadataProvider):
    """libcst's expression contexts (ExpressionContextProvider's), from its own visitor in one
    walk of the module.

    libcst's providers are batchable: run together in a walk of every node that finds each
    provider's visit methods with `inspect.getmembers`, at every parse, to call the one they
    have (visit_Module, which walks the module again itself). That was a third of a parse's
    time, and a first call parses its function's file (12-36 ms on the shared bench's)."""

    def _gen_impl(self, module: cst.Module) -> None:
        module.visit(ExpressionContextVisitor(self, ExpressionContext.LOAD))


class BindingScopeProvider(BaseMetadataProvider):
    """libcst's scopes and their bindings (ScopeProvider's), without resolving every read up
    front, and not batched (see ContextProvider).

    ScopeProvider ends by pairing each read of a name with each binding of that name in its
    scope (O(reads x rebinds): 2.4 s of a 1,000-statement function that rebinds one name
    throughout, 9 s at 3,000). The front end asks about the reads it checks, through the
    scope's public lookup (`scope[name]`: the bindings a read there may see), so that pass
    is left out and parsing stays linear."""

    METADATA_DEPENDENCIES = (ContextProvider,)

    def _gen_impl(self, module: cst.Module) -> None:
        module.visit(ScopeVisitor(self))

    def get_metadata(self, key, node, *default):
        # (ScopeVisitor asks for libcst's contexts: ContextProvider holds the same)
        key = ContextProvider if key is ExpressionContextProvider else key
        return super().get_metadata(key, node, *default)


# What a parse resolves, dependencies first (no ParentNodeProvider: check.py maps the parents
# inside the function it checks; the expression contexts come with the scopes, which depend
# on them)
PROVIDERS = (PositionProvider, ContextProvider, BindingScopeProvider)


def resolved(wrapper: MetadataWrapper, providers=PROVIDERS) -> dict:
    """`wrapper.resolve_many(providers)`, each provider run once in the order given
    (dependencies first). libcst's own resolution also runs, at each round of its dependency
    loop, its batched walk of every node for the round's batchable providers, even when there
    are none (ours are not batchable): a third of the metadata's time (18.5 -> 12 ms for the
    shared bench's pendulum_grad). Where the wrapper keeps its results elsewhere than in the
    dict this fills (another libcst), libcst resolves them itself."""
    computed = getattr(wrapper, "_metadata", None)
    if isinstance(computed, dict):
        for provider in providers:
            if provider not in computed and not provider.gen_cache:
                computed[provider] = provider()._gen(wrapper)
    return wrapper.resolve_many(providers)


def _parse(path: str, text: str, digest: str) -> ParsedFile:
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    meta = resolved(wrapper)
    positions = meta[PositionProvider]
    defs, lambdas = {}, {}
    for node, pos in positions.items():  # every node once: lookups never walk the tree again
        if isinstance(node, cst.FunctionDef):
            defs.setdefault(node.name.value, []).append(node)
        elif isinstance(node, cst.Lambda):
            lambdas.setdefault(pos.start.line, []).append(node)
    return ParsedFile(path, text, digest, wrapper.module, positions, meta[BindingScopeProvider],
                      meta[ContextProvider], defs, lambdas)


@dataclass
class FunctionSource:
    file: ParsedFile
    node: cst.CSTNode  # cst.FunctionDef or cst.Lambda
    name: str

    def loc(self, node=None) -> SourceLoc:
        return self.file.loc(node if node is not None else self.node)


def function_source(fn) -> FunctionSource:
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailableError(f"{fn!r} is not a Python function with source code")
    parsed = parse_file(code.co_filename, code.co_firstlineno)
    name = code.co_name  # (not fn.__name__: functools.wraps gives a wrapper its callee's)
    key = (parsed.path, parsed.digest, name, code.co_firstlineno,
           next((p for p in code.co_positions() if p[0] is not None and p[3]), None))
    with _LOCK:
        node = _NODES.get(key)
        if node is None or parsed.positions.get(node) is None:  # (of an older parse)
            node = _find_lambda(parsed, code) if name == "<lambda>" else \
                _find_def(parsed, code, name)
            _NODES[key] = node
    if node is None:
        raise SourceUnavailableError(
            f"cannot find the source of {fn.__qualname__} in {code.co_filename}",
            hint="the file may have changed since it was imported; re-import it")
    return FunctionSource(parsed, node, fn.__name__)


_NODES: dict = {}  # (file, digest, name, first line, first position) -> node


def _find_def(parsed: ParsedFile, code, name: str):
    best = None
    for node in parsed.defs.get(name, ()):
        pos = parsed.positions[node]
        def_line = pos.start.line
        first = min([def_line] + [parsed.positions[d].start.line for d in node.decorators])
        if first <= code.co_firstlineno <= def_line:
            best = node
    return best


def _find_lambda(parsed: ParsedFile, code):
    """The lambda on the code's first line whose parameters are the code's and whose body is
    the innermost one holding the code's first position (lambdas nest: `lambda x: g(lambda
    y: ...)` on one line)."""
    candidates = list(parsed.lambdas.get(code.co_firstlineno, ()))
    named = [n for n in candidates if _lambda_params(n) == _code_params(code)]
    candidates = named or candidates
    body_pos = next((p for p in code.co_positions() if p[0] is not None and p[3]), None)
    if len(candidates) <= 1 or body_pos is None:
        return candidates[0] if candidates else None
    holding = [n for n in candidates if _holds(parsed.positions[n.body], body_pos)]
    if not holding:
        return candidates[0]
    return min(holding, key=lambda n: _extent(parsed.positions[n.body]))


def _lambda_params(node) -> tuple:
    p = node.params
    names = [q.name.value for q in (*p.posonly_params, *p.params, *p.kwonly_params)]
    names += [q.name.value for q in (p.star_arg, p.star_kwarg) if isinstance(q, cst.Param)]
    return tuple(names)


def _code_params(code) -> tuple:
    count = code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    return tuple(code.co_varnames[:count])


def _holds(span, pos) -> bool:
    return (span.start.line, span.start.column) <= (pos[0], pos[2]) <= \
        (span.end.line, span.end.column)


def _extent(span) -> tuple:
    return (span.end.line - span.start.line, span.end.column - span.start.column)


def rewritten(source: FunctionSource) -> FunctionSource:
    """`source` after the signature-free rewriters, still reporting the user's positions."""
    if not isinstance(source.node, cst.FunctionDef):
        return source
    key = (source.file.path, source.file.digest, source.file.positions[source.node].start.line)
    with _LOCK:
        cached = _REWRITTEN.get(key)
        if cached is None:
            cached = _REWRITTEN[key] = _rewrite(source)
        return cached


_REWRITTEN: dict = {}


def _rewrite(source: FunctionSource) -> FunctionSource:
    from ..rewriters.source.pipeline import needs_rewriting, rewrite_function
    parsed = source.file
    span = parsed.positions[source.node]
    lines = parsed.text.splitlines(keepends=True)[span.start.line - 1:span.end.line]
    if not needs_rewriting("".join(lines)):
        return source
    node, origin = rewrite_function(source.node, parsed.positions)
    positions = {n: parsed.positions[o] for n, o in origin.items() if o in parsed.positions}
    wrapper = MetadataWrapper(cst.Module(body=[node]), unsafe_skip_copy=True)
    contexts = resolved(wrapper, (ContextProvider,))[ContextProvider]
    view = replace(parsed, positions=ChainMap(positions, parsed.positions),
                   contexts=ChainMap(dict(contexts), parsed.contexts))
    return FunctionSource(view, node, source.name)
