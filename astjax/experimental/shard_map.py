"""jax.experimental.shard_map's spelling of `jax.shard_map` (mesh and specs positional)."""
from astjax.meshes import shard_map as _shard_map


def shard_map(f, mesh, in_specs, out_specs, check_rep=True, auto=frozenset()):
    return _shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                      check_vma=check_rep)


__all__ = ["shard_map"]
