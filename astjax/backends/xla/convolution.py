"""conv_general_dilated is `stablehlo.convolution`."""
import numpy as np

from .emit import LOWER, i64_array


@LOWER.register("conv_general_dilated")
def _convolution(body, eqn, lhs, rhs):
    p = eqn.params
    out = eqn.outs[0].aval
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    dtype = out.dtype
    lhs, rhs = body.convert(lhs, dtype), body.convert(rhs, dtype)
    lists = lambda xs: "[" + ", ".join(str(int(x)) for x in xs) + "]"  # noqa: E731
    numbers = (f"#stablehlo.conv<raw input_batch_dimension = {lhs_spec[0]}, "
               f"input_feature_dimension = {lhs_spec[1]}, "
               f"input_spatial_dimensions = {lists(lhs_spec[2:])}, "
               f"kernel_input_feature_dimension = {rhs_spec[1]}, "
               f"kernel_output_feature_dimension = {rhs_spec[0]}, "
               f"kernel_spatial_dimensions = {lists(rhs_spec[2:])}, "
               f"output_batch_dimension = {out_spec[0]}, "
               f"output_feature_dimension = {out_spec[1]}, "
               f"output_spatial_dimensions = {lists(out_spec[2:])}>")
    pads = ", ".join(f"[{lo}, {hi}]" for lo, hi in p["padding"])
    n = len(p["padding"])
    padding = f"dense<[{pads}]> : tensor<{n}x2xi64>" if n else "dense<> : tensor<0x2xi64>"
    attrs = (f"window_strides = {i64_array(p['window_strides'])}, padding = {padding}, "
             f"lhs_dilation = {i64_array(p['lhs_dilation'])}, "
             f"rhs_dilation = {i64_array(p['rhs_dilation'])}, dimension_numbers = {numbers}, "
             f"feature_group_count = {p['feature_group_count']} : i64, "
             f"batch_group_count = {p['batch_group_count']} : i64")
    return [body.op1("stablehlo.convolution", [lhs, rhs], out.shape, np.dtype(dtype), attrs,
                     hint="conv")]
