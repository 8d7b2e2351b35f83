"""Lowerings of the reductions: row loops in the runtime over the reduced axes moved last;
running reductions along one axis."""
import numpy as np

from .emit import LOWER, as_dtype, cast, dtype_text, product, scalar_literal, tuple_text
from .layout import blocks, out_aval, rows
from .nest import REDUCERS, Reducer


# primitive -> (helper, start value of the accumulator, accumulate float32 in float64?)
REDUCTIONS = {"reduce_sum": ("sum_rows", 0, True), "reduce_prod": ("prod_rows", 1, True),
              "reduce_max": ("max_rows", None, False), "reduce_min": ("min_rows", None, False),
              "reduce_and": ("all_rows", True, False), "reduce_or": ("any_rows", False, False)}


def _reduction(helper, start, widen):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axes = tuple(eqn.params["axes"])
        if not axes or aval.shape == ():
            return [f"{outs[0]} = {as_dtype(x, aval, out.dtype)}"]
        lines, view, kept, _ = rows(fe, x, aval, axes)
        acc_dtype = np.float64 if widen and out.dtype == np.float32 else out.dtype
        acc = fe.fresh(outs[0] + "_acc")
        size = product(kept)
        if start is None:
            lines.append(f"{acc} = np.empty({size}, {dtype_text(acc_dtype)})")
        else:
            lines.append(f"{acc} = np.full({size}, {scalar_literal(start, acc_dtype)})")
        lines.append(f"rt.{helper}({view}, {acc})")
        lines.append(f"{outs[0]} = {_from_accumulator(acc, acc_dtype, out.dtype, kept)}")
        return lines
    return lower


def _from_accumulator(acc: str, acc_dtype, dtype, kept: list) -> str:
    """The 1-D accumulator as the reduction's result: its dtype, the kept shape."""
    if not kept:
        return cast(f"{acc}[0]", acc_dtype, dtype)
    if np.dtype(acc_dtype) != np.dtype(dtype):
        acc = f"{acc}.astype({dtype_text(dtype)})"
    return acc if len(kept) == 1 else f"{acc}.reshape({tuple_text(kept)})"


for _prim, (_helper, _start, _widen) in REDUCTIONS.items():
    LOWER.set(_prim, _reduction(_helper, _start, _widen))


def _arg_reduction(helper):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        lines, view, kept, _ = rows(fe, x, aval, (eqn.params["axis"],))
        result = fe.fresh(outs[0] + "_flat")
        lines += [f"{result} = np.empty({product(kept)}, {dtype_text(out.dtype)})",
                  f"rt.{helper}({view}, {result})",
                  f"{outs[0]} = {_from_accumulator(result, out.dtype, out.dtype, kept)}"]
        return lines
    return lower


LOWER.set("argmax", _arg_reduction("argmax_rows"))
LOWER.set("argmin", _arg_reduction("argmin_rows"))

CUMULATIVE_OPS = {"cumsum": "rt.ADD", "cumprod": "rt.MUL", "cummax": "rt.MAX", "cummin": "rt.MIN"}


def _cumulative(op):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axis = eqn.params["axis"]
        return [f"{outs[0]} = np.empty({x}.shape, {dtype_text(out.dtype)})",
                f"rt.cumulative({op}, {blocks(x, aval, axis)}, {blocks(outs[0], out, axis)}, "
                f"{bool(eqn.params.get('reverse', False))})"]
    return lower


for _prim, _op in CUMULATIVE_OPS.items():
    LOWER.set(_prim, _cumulative(_op))


# ---------------------------------------------------------------- fused into loop nests
def _extreme(dtype, largest: bool) -> str:
    """The identity of max (largest=False: the smallest value) or min."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return scalar_literal(-np.inf if not largest else np.inf, dtype)
    if dtype.kind == "b":
        return "True" if largest else "False"
    info = np.iinfo(dtype)
    return scalar_literal(info.max if largest else info.min, dtype)


def _pick(op):
    """max/min of floats and integers (NaN wins); booleans as any/all."""
    def update(acc, v):
        return f"{acc} = rt.r{op}({acc}, {v})"
    return update


def _arg_update(better):
    def update(acc, v, best, index):
        return [f"if {acc} == {acc} and ({v} {better} {acc} or {v} != {v} or {best} < 0):",
                f"    {acc}, {best} = {v}, {index}"]
    return update


REDUCERS.update({
    "reduce_sum": Reducer(lambda d: scalar_literal(0, d), lambda a, v: f"{a} = rt.radd({a}, {v})",
                          True),
    "reduce_prod": Reducer(lambda d: scalar_literal(1, d), lambda a, v: f"{a} = rt.rmul({a}, {v})",
                           True),
    "reduce_max": Reducer(lambda d: _extreme(d, False), _pick("max")),
    "reduce_min": Reducer(lambda d: _extreme(d, True), _pick("min")),
    "reduce_and": Reducer(lambda d: "True", lambda a, v: f"{a} = {a} & {v}",
                          settled=lambda a: f"not {a}"),
    "reduce_or": Reducer(lambda d: "False", lambda a, v: f"{a} = {a} | {v}", settled=lambda a: a),
    "argmax": Reducer(lambda d: _extreme(d, False), _arg_update(">")),
    "argmin": Reducer(lambda d: _extreme(d, True), _arg_update("<")),
})
