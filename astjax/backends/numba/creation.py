"""Lowerings of the creation primitives (iota, full)."""

import numpy as np

from .emit import LOWER, VIEW, as_dtype, cast, dtype_text, scalar_literal, tuple_text
from .values import View
from .layout import out_aval


def lower_iota(fe, eqn, ins, outs):
    p = eqn.params
    shape, dim = list(p["shape"]), p["dimension"]
    arange = f"np.arange({shape[dim]}).astype({dtype_text(p['dtype'])})"
    if len(shape) == 1:
        return [f"{outs[0]} = {arange}"]
    expanded = ["1"] * len(shape)
    expanded[dim] = str(shape[dim])
    return [f"{outs[0]} = np.ascontiguousarray(np.broadcast_to({arange}.reshape("
            f"{tuple_text(expanded)}), {tuple_text([str(d) for d in shape])}))"]


def lower_full(fe, eqn, ins, outs):
    out = out_aval(eqn)
    value = as_dtype(ins[0], eqn.ins[0].aval, out.dtype)
    if not out.shape:
        return [f"{outs[0]} = {value}"]
    return [f"{outs[0]} = np.full({tuple_text([str(d) for d in out.shape])}, {value}, "
            f"{dtype_text(out.dtype)})"]


LOWER.set("iota", lower_iota)
LOWER.set("full", lower_full)


def view_iota(fe, eqn, values):
    p, out = eqn.params, out_aval(eqn)
    dim = p["dimension"]
    return View(out, lambda index, reader: _index_as(index[dim], out.dtype), [])


def _index_as(i, dtype) -> str:
    if isinstance(i, int):
        return scalar_literal(i, dtype)
    return cast(i, np.int64, dtype)


def view_full(fe, eqn, values):
    out = out_aval(eqn)
    value = cast(fe.scalar(values[0]), eqn.ins[0].aval.dtype, out.dtype)
    return View(out, lambda index, reader: value, [], fill=value)


VIEW.set("iota", view_iota)
VIEW.set("full", view_full)
