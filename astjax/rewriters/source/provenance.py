"""Keeping track of where rewritten code came from.

libcst transformers build new nodes; error messages and the comments in generated code must
still point at the user's file. A `ProvenanceTransformer` records, for every node it outputs,
the original node it stands for; nodes it synthesises (a flag assignment replacing a `break`)
inherit the position of the node they replace.
"""
import libcst as cst


class ProvenanceTransformer(cst.CSTTransformer):
    def __init__(self, origin: dict):
        super().__init__()
        self.origin = origin  # output node -> the user's original node

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        root = self.origin.get(original_node, original_node)
        for node in _output_nodes(result):
            adopt(node, root, self.origin)
        return result


def adopt(node: cst.CSTNode, original: cst.CSTNode, origin: dict) -> None:
    """Map `node` and every descendant that has no origin yet to `original`."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current in origin:
            continue
        origin[current] = original
        stack.extend(current.children)


def _output_nodes(result):
    if isinstance(result, cst.FlattenSentinel):
        return list(result.nodes)
    if isinstance(result, cst.CSTNode):
        return [result]
    return []
