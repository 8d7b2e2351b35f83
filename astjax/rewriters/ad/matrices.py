"""Matrix helpers the linear-algebra derivatives are written in: batched products, transposes,
triangles and diagonals over the trailing two axes, each a few table primitives."""
import numpy as np

from astjax.core.bind import bind

from .util import aval


def mT(x):
    """x with its last two axes swapped."""
    nd = aval(x).ndim
    return bind("transpose", x, permutation=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def mm(a, b):
    """a @ b over the trailing two axes; leading axes are a batch both share."""
    nb = aval(a).ndim - 2
    batch = tuple(range(nb))
    return bind("dot_general", a, b, dimension_numbers=(((nb + 1,), (nb,)), (batch, batch)))


def index_grid(x, shift=0):
    """(rows + shift, cols) iotas shaped as x."""
    shape = aval(x).shape
    nd = len(shape)
    rows = bind("iota", dtype="int64", shape=shape, dimension=nd - 2)
    cols = bind("iota", dtype="int64", shape=shape, dimension=nd - 1)
    return (bind("add", rows, shift) if shift else rows), cols


def _zero(x):
    return np.zeros((), aval(x).dtype)


def tril(x, k: int = 0):
    """The lower triangle of x (entries with col <= row + k), zeros elsewhere."""
    rows, cols = index_grid(x, k)
    return bind("select", bind("le", cols, rows), x, _zero(x))


def triu(x, k: int = 0):
    """The upper triangle of x (entries with col >= row + k), zeros elsewhere."""
    rows, cols = index_grid(x, k)
    return bind("select", bind("ge", cols, rows), x, _zero(x))


def diagonal(x):
    """(..., n, n) -> (..., n): the main diagonal."""
    rows, cols = index_grid(x, 0)
    nd = aval(x).ndim
    return bind("reduce_sum", bind("select", bind("eq", rows, cols), x, _zero(x)), axes=(nd - 1,))


def diag_embed(v):
    """(..., n) -> (..., n, n) with v on the diagonal."""
    a = aval(v)
    shape = tuple(a.shape) + (a.shape[-1],)
    nd = len(shape)
    spread = bind("broadcast_in_dim", v, shape=shape,
                  broadcast_dimensions=tuple(range(nd - 2)) + (nd - 1,))
    rows, cols = index_grid(spread, 0)
    return bind("select", bind("eq", rows, cols), spread, _zero(spread))


def eye_like(x):
    """The identity, shaped and typed as the square matrices x."""
    rows, cols = index_grid(x, 0)
    return bind("convert", bind("eq", rows, cols), dtype=aval(x).dtype.name)


def cols_scaled(x, s):
    """x @ diag(s): column j of x times s[j]."""
    return bind("mul", x, as_row(s))


def as_row(s):
    """(..., n) -> (..., 1, n), to broadcast along columns."""
    shape = aval(s).shape
    return bind("reshape", s, new_sizes=tuple(shape[:-1]) + (1, shape[-1]))


def as_column(s):
    """(..., n) -> (..., n, 1), to broadcast along rows."""
    shape = aval(s).shape
    return bind("reshape", s, new_sizes=tuple(shape) + (1,))


def solve_triangular(a, b, **params):
    base = dict(left_side=False, lower=False, transpose_a=False, conjugate_a=False,
                unit_diagonal=False)
    base.update(params)
    return bind("triangular_solve", a, b, **base)


def columns(x, start, stop):
    """x[..., :, start:stop]."""
    return _slice_last(x, aval(x).ndim - 1, start, stop)


def rows_of(x, start, stop):
    """x[..., start:stop, :]."""
    return _slice_last(x, aval(x).ndim - 2, start, stop)


def _slice_last(x, axis, start, stop):
    shape = aval(x).shape
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = start, stop
    return bind("slice", x, start_indices=tuple(starts), limit_indices=tuple(limits),
                strides=None)


def pad_to(x, rows, cols):
    """x zero-padded at the bottom and right to (..., rows, cols)."""
    shape = aval(x).shape
    config = [(0, 0, 0)] * (len(shape) - 2) + [(0, rows - shape[-2], 0),
                                                 (0, cols - shape[-1], 0)]
    return bind("pad", x, _zero(x), config=tuple(config))
