"""Helpers shared by the lowerings: array layouts as source text (rows, blocks, flat indices,
broadcasts) that the generated code computes with."""
import numpy as np

from astjax.core.avals import AVal

from .emit import dims, product, transposed, tuple_text


def out_aval(eqn, k: int = 0):
    return eqn.outs[k].aval


def reshape_to(name: str, shape: list) -> str:
    """`name` reshaped to `shape` (texts); a 0-d result is the single element, a scalar."""
    if not shape:
        return f"{name}.reshape({name}.size)[0]"
    return f"{name}.reshape({tuple_text(shape)})"


def rows(fe, name: str, aval, reduced: tuple) -> tuple:
    """(lines, view, kept dims, reduced dims): `name` as a 2-D (kept, reduced) array, copying
    only when the reduced axes are not already the trailing ones."""
    kept = [j for j in range(aval.ndim) if j not in reduced]
    d = dims(name, aval)
    kept_dims, red_dims = [d[j] for j in kept], [d[j] for j in reduced]
    view = fe.fresh(name + "_rows")
    shape = f"({product(kept_dims)}, {product(red_dims)})"  # product([]) is "1"
    order = kept + list(reduced)
    if order == sorted(order):
        return [f"{view} = {name}.reshape({shape})"], view, kept_dims, red_dims
    return ([f"{view} = np.ascontiguousarray({transposed(name, order)}).reshape({shape})"],
            view, kept_dims, red_dims)


def blocks(name: str, aval, axis: int) -> str:
    """`name` as a 3-D (before, axis, after) view: a free reshape of a contiguous array."""
    d = dims(name, aval)
    before, after = product(d[:axis]), product(d[axis + 1:])
    return f"{name}.reshape(({before}, {d[axis]}, {after}))"


def shape_text(shape) -> str:
    return tuple_text([str(d) for d in shape])


def flat_index(fe, name: str, aval, lines: list) -> str:
    """An index operand as a 1-D array (a 0-d index becomes one element)."""
    flat = fe.fresh(name + "_flat") if name.isidentifier() else fe.fresh("index_flat")
    if aval.shape == ():
        lines.append(f"{flat} = np.full(1, {name})")
    else:
        lines.append(f"{flat} = {name}.reshape({name}.size)")
    return flat


def broadcast(name: str, aval, shape) -> str:
    """`name` as a contiguous array of `shape` (itself when it already has it)."""
    if tuple(aval.shape) == tuple(shape):
        return name
    return f"np.ascontiguousarray(np.broadcast_to({name}, {shape_text(shape)}))"


def from_blocks(name: str, shape) -> str:
    """A (before, axis, after) result in its final shape (a scalar when that is 0-d)."""
    return f"{name}[0, 0, 0]" if not shape else f"{name}.reshape({shape_text(shape)})"


def aval_of(shape, dtype):
    return AVal(tuple(shape), np.dtype(dtype))
