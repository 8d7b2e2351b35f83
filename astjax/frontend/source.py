"""Finding a function's source: the file it came from, parsed once with libcst, and its node.

Plain and nested functions, methods and lambdas are located through their code object (first
line, and for lambdas the column of the body, from `co_positions`). Files are read through
`linecache`, so notebook cells that register their source there work too; a function with no
source at all (REPL, `exec` of a string) gets a `SourceUnavailableError`.
"""
import hashlib
import linecache
import threading
from collections import ChainMap
from dataclasses import dataclass, replace

import libcst as cst
import libcst.matchers as m
from libcst.metadata import (ExpressionContextProvider, MetadataWrapper, ParentNodeProvider,
                             PositionProvider, ScopeProvider)

from ..errors import SourceLoc, SourceUnavailableError


@dataclass
class ParsedFile:
    path: str
    text: str
    digest: str
    module: cst.Module
    positions: dict
    scopes: dict
    parents: dict
    contexts: dict

    def loc(self, node) -> SourceLoc:
        pos = self.positions.get(node)
        if pos is None:
            return None
        return SourceLoc(self.path, pos.start.line, pos.start.column)


_FILES: dict = {}
# One parse per file text, whichever thread asks first: nodes are dictionary keys everywhere
# (positions, scopes, the caches below), so two parses of one text must never mix.
_LOCK = threading.RLock()


def parse_file(path: str) -> ParsedFile:
    """The parsed file at `path`, re-parsed only when its text changed."""
    with _LOCK:
        linecache.checkcache(path)
        text = "".join(linecache.getlines(path))
        if not text:
            raise SourceUnavailableError(
                f"no source for {path}: astjax compiles functions from their source file",
                hint="define the function in a .py file (or a notebook cell) instead of exec/REPL")
        digest = hashlib.sha256(text.encode()).hexdigest()
        cached = _FILES.get(path)
        if cached is not None and cached.digest == digest:
            return cached
        parsed = _parse(path, text, digest)
        _FILES[path] = parsed
        return parsed


def parse_text(path: str, text: str) -> ParsedFile:
    """`text` parsed as the file at `path` (for source that is not read from disk here)."""
    return _parse(path, text, hashlib.sha256(text.encode()).hexdigest())


def _parse(path: str, text: str, digest: str) -> ParsedFile:
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    meta = wrapper.resolve_many([PositionProvider, ScopeProvider, ParentNodeProvider,
                                 ExpressionContextProvider])
    return ParsedFile(path, text, digest, wrapper.module, meta[PositionProvider],
                      meta[ScopeProvider], meta[ParentNodeProvider], meta[ExpressionContextProvider])


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
    parsed = parse_file(code.co_filename)
    key = (parsed.path, parsed.digest, fn.__name__, code.co_firstlineno,
           next((p for p in code.co_positions() if p[0] is not None and p[3]), None))
    with _LOCK:
        node = _NODES.get(key)
        if node is None or parsed.positions.get(node) is None:  # (of an older parse)
            node = _find_lambda(parsed, code) if fn.__name__ == "<lambda>" else \
                _find_def(parsed, code, fn.__name__)
            _NODES[key] = node
    if node is None:
        raise SourceUnavailableError(
            f"cannot find the source of {fn.__qualname__} in {code.co_filename}",
            hint="the file may have changed since it was imported; re-import it")
    return FunctionSource(parsed, node, fn.__name__)


_NODES: dict = {}  # (file, digest, name, first line, first position) -> node


def _find_def(parsed: ParsedFile, code, name: str):
    best = None
    for node in _nodes(parsed.module, m.FunctionDef(name=m.Name(name))):
        pos = parsed.positions[node]
        def_line = pos.start.line
        first = min([def_line] + [parsed.positions[d].start.line for d in node.decorators])
        if first <= code.co_firstlineno <= def_line:
            best = node
    return best


def _find_lambda(parsed: ParsedFile, code):
    body_pos = next((p for p in code.co_positions() if p[0] is not None and p[3]), None)
    candidates = []
    for node in _nodes(parsed.module, m.Lambda()):
        pos = parsed.positions[node]
        if pos.start.line == code.co_firstlineno:
            candidates.append(node)
    if len(candidates) <= 1 or body_pos is None:
        return candidates[0] if candidates else None
    for node in candidates:
        body = parsed.positions[node.body]
        if (body.start.line, body.start.column) <= (body_pos[0], body_pos[2]) <= \
                (body.end.line, body.end.column):
            return node
    return candidates[0]


def _nodes(module: cst.Module, matcher):
    return m.findall(module, matcher)


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
    from ..rewriters.source.pipeline import rewrite_function
    parsed = source.file
    node, origin = rewrite_function(source.node, parsed.positions)
    positions = {n: parsed.positions[o] for n, o in origin.items() if o in parsed.positions}
    wrapper = MetadataWrapper(cst.Module(body=[node]), unsafe_skip_copy=True)
    contexts = wrapper.resolve(ExpressionContextProvider)
    view = replace(parsed, positions=ChainMap(positions, parsed.positions),
                   contexts=ChainMap(dict(contexts), parsed.contexts))
    return FunctionSource(view, node, source.name)
