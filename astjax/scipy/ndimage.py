"""`jax.scipy.ndimage.map_coordinates`: an array read at fractional coordinates, by its
nearest element (order 0) or by linear interpolation between its neighbours (order 1), with
SciPy's modes for coordinates outside it (constant, nearest, wrap, mirror, reflect), as JAX
reads it."""
import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy import _util as u
from ..numpy._creation import _as_operand


def _mirror(index, size):
    """The triangular wave of period 2(size - 1): ... 2 1 0 1 2 ... size-1 size-2 ..."""
    half = size - 1
    return jnp.abs((index + half) % (2 * half) - half) if half else index * 0


def _reflect(index, size):
    """Mirrored about the array's edges themselves: ... 1 0 0 1 ... size-1 size-1 ..."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


INDEX_IN_RANGE = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _nearest(coordinate):
    """[(index, weight)]: the nearest element (halves rounded away from zero)."""
    rounded = coordinate if np.dtype(u.dtype_of(coordinate)).kind in "iu" else lax.round(coordinate)
    return [(rounded.astype(np.int32), 1.0)]


def _linear(coordinate):
    """[(index, weight)] of the two neighbours, weighted by nearness."""
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order, mode="constant", cval=0.0):
    array = _as_operand(input)
    coordinates = [_as_operand(c) for c in coordinates]
    shape = u.shape(array)
    if len(coordinates) != len(shape):
        raise u.ShapeError(f"map_coordinates: {len(coordinates)} coordinate arrays for an array "
                           f"of rank {len(shape)}", hint="give one coordinate array per axis")
    if mode not in INDEX_IN_RANGE:
        raise u.ShapeError(f"map_coordinates: mode={mode!r}",
                           hint=f"use one of {', '.join(INDEX_IN_RANGE)}")
    if order not in (0, 1):
        raise u.ShapeError(f"map_coordinates: order={order!r}",
                           hint="use order 0 (nearest) or 1 (linear), as JAX does")
    neighbours = _nearest if order == 0 else _linear
    per_axis = []
    for coordinate, size in zip(coordinates, shape):
        per_axis.append([(INDEX_IN_RANGE[mode](index, size),
                          (index >= 0) & (index < size) if mode == "constant" else None, weight)
                         for index, weight in neighbours(coordinate)])
    fill = jnp.asarray(cval, u.dtype_of(array))
    terms = []
    for corner in itertools.product(*per_axis):
        indices, inside, weights = zip(*corner)
        value = array[tuple(indices)]
        if mode == "constant":
            value = jnp.where(functools.reduce(operator.and_, inside), value, fill)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if np.dtype(u.dtype_of(array)).kind in "iu":
        result = lax.round(result)
    return result.astype(u.dtype_of(array))
