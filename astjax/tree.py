"""`jax.tree`: the pytree functions under their short names (`jax.tree.map` is
`tree_util.tree_map`)."""
from .tree_util import (register_static, static, tree_all as all,  # noqa: F401
                        tree_broadcast as broadcast, tree_flatten as flatten,
                        tree_flatten_with_path as flatten_with_path, tree_leaves as leaves,
                        tree_leaves_with_path as leaves_with_path, tree_map as map,
                        tree_map_with_path as map_with_path, tree_reduce as reduce,
                        tree_reduce_associative as reduce_associative,
                        tree_structure as structure, tree_transpose as transpose,
                        tree_unflatten as unflatten)
