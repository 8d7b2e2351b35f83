"""Collectives never reach a Numba kernel: a map naming their axis (vmap, or pmap on this
backend, which runs as one) batches them into reductions first. One left over names an axis
no map binds: refused with its line."""
from astjax.errors import TransformError

from .emit import LOWER


def _unbound(fe, eqn, ins, outs):
    raise TransformError(f"lax.{eqn.prim} over the axis {eqn.params['axis_name']!r} is outside "
                         "every map that names it", eqn.loc,
                         hint="call it inside pmap(f, axis_name=...) or vmap(f, axis_name=...)")


for _name in ("psum", "pmax", "pmin", "all_gather", "ppermute", "axis_index"):
    LOWER.set(_name, _unbound)
