"""conv_general_dilated: operands moved to canonical (N, C, D, H, W) / (O, I, KD, KH, KW)
layouts (fewer spatial axes become leading size-1 ones) and convolved by the runtime: im2col
into one BLAS product (`conv5_gemm`) where it applies, else the direct loop (`conv5`), which
reads input dilation, groups and padding as index arithmetic."""
from .emit import LOWER, dims, dtype_text, transposed, tuple_text
from .layout import out_aval


def _canonical(fe, name, aval, spec, lines):
    """`name` transposed to spec order and reshaped to 5-D."""
    d = dims(name, aval)
    shape = [d[spec[0]], d[spec[1]]] + ["1"] * (5 - aval.ndim) + [d[a] for a in spec[2:]]
    view = fe.fresh(name + "_5d")
    lines.append(f"{view} = np.ascontiguousarray({transposed(name, spec)})"
                 f".reshape({tuple_text(shape)})")
    return view


def _padded(values, fill):
    return tuple_text([str(fill)] * (3 - len(values)) + [str(int(v)) for v in values])


def _im2col(params) -> bool:
    """Whether the patch-matrix kernel covers it: no input dilation, no groups (see
    conv_runtime for the measurement that makes it the default)."""
    return all(d == 1 for d in params["lhs_dilation"]) and \
        params["feature_group_count"] == 1 and params["batch_group_count"] == 1


def lower_conv(fe, eqn, ins, outs):
    p = eqn.params
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    out = out_aval(eqn)
    lines = []
    x = _canonical(fe, ins[0], eqn.ins[0].aval, lhs_spec, lines)
    w = _canonical(fe, ins[1], eqn.ins[1].aval, rhs_spec, lines)
    od = dims(outs[0], out)
    canonical = [od[a] for a in out_spec]
    result = fe.fresh(outs[0] + "_5d")
    shape5 = canonical[:2] + ["1"] * (5 - out.ndim) + canonical[2:]
    lines.append(f"{result} = np.empty({tuple_text(shape5)}, {dtype_text(out.dtype)})")
    strides, pads = _padded(p['window_strides'], 1), _padded([lo for lo, _ in p['padding']], 0)
    if _im2col(p):
        lines.append(f"rt.conv5_gemm({x}, {w}, {result}, {strides}, {pads}, "
                     f"{_padded(p['rhs_dilation'], 1)})")
    else:
        lines.append(f"rt.conv5({x}, {w}, {result}, {strides}, {pads}, "
                     f"{_padded(p['lhs_dilation'], 1)}, {_padded(p['rhs_dilation'], 1)}, "
                     f"{p['feature_group_count']}, {p['batch_group_count']})")
    back = [out_spec.index(j) for j in range(out.ndim)]
    canonical_view = f"{result}.reshape({tuple_text(canonical)})"
    lines.append(f"{outs[0]} = np.ascontiguousarray({transposed(canonical_view, back)})")
    return lines


LOWER.set("conv_general_dilated", lower_conv)
