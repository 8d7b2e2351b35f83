"""The import graph keeps DESIGN's layering: API -> front end -> library -> rewriters -> core,
and backends -> core; no cycles, no edge against those arrows.

Every `import` statement of every module under astjax/ counts, function-local ones included
(a local import is still a dependency; it only hides a cycle from Python).
"""
import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "astjax")

# Layer of a module, by its dotted name's prefix (the longest matching prefix wins).
LAYERS = {
    "astjax": "api",
    "astjax.frontend": "frontend",
    "astjax.numpy": "library", "astjax.lax": "library", "astjax.nn": "library",
    "astjax.control": "library", "astjax.random": "library", "astjax.scipy": "library",
    "astjax.example_libraries": "library", "astjax.debug": "library", "astjax.dtypes": "library",
    "astjax.rewriters": "rewriters",
    "astjax.core": "core",
    "astjax.backends": "backends",
    # importable from every layer: they import nothing of astjax's but each other
    "astjax.errors": "base", "astjax.tree_util": "base", "astjax.config": "base",
}
# What each layer may import besides itself and the base.
ALLOWED = {
    "api": {"frontend", "library", "rewriters", "core", "backends"},
    "frontend": {"library", "rewriters", "core"},
    "library": {"core"},
    "rewriters": {"core"},
    "core": set(),
    "backends": {"core"},
    "base": set(),
}


def module_name(path: str) -> str:
    rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
    return rel[:-len(".__init__")] if rel.endswith(".__init__") else rel


def layer(name: str) -> str:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in LAYERS:
            return LAYERS[prefix]
    raise KeyError(name)


def modules() -> dict:
    """{module name: path} of every module of the package."""
    out = {}
    for root, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(root, f)
                out[module_name(path)] = path
    return out


def imports_of(name: str, path: str, known: dict) -> set:
    """The astjax modules `name` imports (resolved to modules, not to names in them)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = path.endswith("__init__.py")
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, is_package, node.module, node.level)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        out.update(_owner(t, known) for t in targets if t.split(".")[0] == "astjax")
    out.discard(None)
    out.discard(name)
    return out


def _absolute(name, is_package, module, level):
    if level == 0:
        return module
    parts = name.split(".")
    base = parts if is_package else parts[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _owner(target: str, known: dict):
    """The module a dotted import target lives in (`astjax.core.bind.bind` -> astjax.core.bind)."""
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        candidate = ".".join(parts[:i])
        if candidate in known:
            return candidate
    return None


@pytest.fixture(scope="module")
def graph() -> dict:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def test_every_module_has_a_layer(graph):
    for name in graph:
        layer(name)


def test_no_edge_against_the_layering(graph):
    wrong = []
    for name, targets in graph.items():
        here = layer(name)
        for target in targets:
            there = layer(target)
            if there not in (here, "base") and there not in ALLOWED[here]:
                wrong.append(f"{name} ({here}) imports {target} ({there})")
    assert wrong == [], "\n".join(wrong)


def test_no_import_cycles(graph):
    cycles = _cycles(graph)
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def _cycles(graph: dict) -> list:
    """One cycle per strongly connected component with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = iter(range(10 ** 9))

    def visit(v):
        index[v] = low[v] = next(counter)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_sees_a_cycle_and_a_back_edge():
    graph = {"astjax.core.a": {"astjax.core.b"}, "astjax.core.b": {"astjax.core.a"}}
    assert _cycles(graph) == [["astjax.core.a", "astjax.core.b"]]
    assert layer("astjax.core.ir") == "core" and "frontend" not in ALLOWED["core"]
