"""NumPy's index tricks as JAX has them: `mgrid`, `ogrid` (grids from static slices),
`r_`, `c_` (concatenation by indexing) and `s_`, `index_exp` (slices as objects).

The slices are static, so grids are built at compile time and enter the program as constants;
`r_` and `c_` concatenate arrays that may be abstract."""
import numpy as np

from ._creation import asarray
from ._joining import concatenate
from ._shape import atleast_1d, reshape
from . import _util as u

s_, index_exp = np.s_, np.index_exp


class _Grid:
    """mgrid[...] (dense: one array, axis 0 per dimension) or ogrid[...] (sparse: a list of
    broadcastable arrays); a complex step 5j means five points, ends included."""

    def __init__(self, numpy_grid, sparse: bool):
        self._grid, self._sparse = numpy_grid, sparse

    def __getitem__(self, key):
        grid = self._grid[key]
        if self._sparse and isinstance(grid, (list, tuple)):
            return [asarray(g) for g in grid]
        return asarray(grid)


mgrid, ogrid = _Grid(np.mgrid, sparse=False), _Grid(np.ogrid, sparse=True)


class _Concatenator:
    """r_[...] joins its items along the first axis, c_[...] along the last with 1-D items
    as columns; a slice item is a range (np.r_'s: a complex step counts points)."""

    def __init__(self, columns: bool):
        self._columns = columns

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        if any(isinstance(item, str) for item in items):
            raise u.DtypeError("r_ and c_ with a string directive are not supported",
                               hint="call jnp.concatenate or jnp.stack with the axis instead")
        pieces = [asarray(np.r_[item]) if isinstance(item, slice) else atleast_1d(item)
                  for item in items]
        if not self._columns:
            return concatenate(pieces, axis=0)
        pieces = [reshape(p, (-1, 1)) if u.ndim(p) == 1 else p for p in pieces]
        return concatenate(pieces, axis=-1)


r_, c_ = _Concatenator(columns=False), _Concatenator(columns=True)
