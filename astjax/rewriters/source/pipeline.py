"""The signature-free source passes, in order, applied to one user function.

    loop_flags     break/continue -> flags
    single_return  early return -> one exit

Each pass is a libcst transformer that keeps provenance, so the rewritten function still
reports the user's own lines. `rewrite_function` returns the new node and a map from every
new node to the original node it stands for.
"""
import libcst as cst

from .loop_flags import LoopFlags
from .single_return import SingleReturn


def passes(positions):
    return [lambda origin: LoopFlags(origin, positions), lambda origin: SingleReturn(origin)]


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
