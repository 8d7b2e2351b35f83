"""Lowerings of sort and argsort: stable row sorts in the runtime."""
from .emit import LOWER, dims, dtype_text, transposed, tuple_text
from .layout import out_aval, rows


def _sorting(helper):
    def lower(fe, eqn, ins, outs):
        x, aval, out = ins[0], eqn.ins[0].aval, out_aval(eqn)
        axis = eqn.params["dimension"]
        lines, view, kept, red = rows(fe, x, aval, (axis,))
        result = fe.fresh(outs[0] + "_rows")
        lines += [f"{result} = np.empty({view}.shape, {dtype_text(out.dtype)})",
                  f"rt.{helper}({view}, {result})"]
        if axis == aval.ndim - 1:
            lines.append(f"{outs[0]} = {result}.reshape({x}.shape)")
            return lines
        moved = [j for j in range(aval.ndim) if j != axis] + [axis]
        back = [moved.index(j) for j in range(aval.ndim)]
        moved_shape = tuple_text([dims(x, aval)[j] for j in moved])
        moved_view = f"{result}.reshape({moved_shape})"
        lines.append(f"{outs[0]} = np.ascontiguousarray({transposed(moved_view, back)})")
        return lines
    return lower


LOWER.set("sort", _sorting("sort_rows"))
LOWER.set("argsort", _sorting("argsort_rows"))
