"""The signature-free source passes, in order, applied to one user function.

    loop_flags     break/continue -> flags
    single_return  early return -> one exit

Each pass is a libcst transformer that keeps provenance, so the rewritten function still
reports the user's own lines. `rewrite_function` returns the new node and a map from every
new node to the original node it stands for.
"""
import ast
import textwrap

import libcst as cst

from .loop_flags import LoopFlags
from .single_return import SingleReturn


def passes(positions):
    return [lambda origin: LoopFlags(origin, positions), lambda origin: SingleReturn(origin)]


def needs_rewriting(text: str) -> bool:
    """Whether any pass would change the function whose source is `text`: a loop with a
    break, continue or return, or a return before a function's last statement. Python's own
    parser answers in well under a millisecond; the passes' libcst walks cost tens."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:  # (an indented string may defeat the dedent: run the passes)
        return True
    loops = (ast.For, ast.AsyncFor, ast.While)
    jumps = (ast.Break, ast.Continue, ast.Return)
    if any(isinstance(n, jumps) for loop in ast.walk(tree) if isinstance(loop, loops)
           for n in ast.walk(loop)):
        return True
    return any(_returns_early(f) for f in ast.walk(tree) if isinstance(f, _FUNCTIONS))


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _returns_early(fn) -> bool:
    """As single_return.needs_rewrite: a return other than the body's last statement."""
    returns, stack = 0, list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS + (ast.Lambda, ast.ClassDef)):
            continue
        returns += isinstance(node, ast.Return)
        stack.extend(ast.iter_child_nodes(node))
    return returns > (1 if isinstance(fn.body[-1], ast.Return) else 0)


def rewrite_function(node: cst.FunctionDef, positions) -> tuple:
    """(rewritten function node, {new node: original node})."""
    origin: dict = {}
    for make in passes(positions):
        transformer = make(origin)
        node = node.visit(transformer)
    return node, origin


def show_passes(node: cst.FunctionDef, positions) -> str:
    """The function's source after each pass, for reading what the rewriters did."""
    out, origin = [], {}
    for make in passes(positions):
        transformer = make(origin)
        node = node.visit(transformer)
        out.append(f"# after {type(transformer).__name__}\n{cst.Module([node]).code}")
    return "\n".join(out)
