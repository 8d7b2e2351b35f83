"""Lowering of the Fourier transform: one `stablehlo.fft` (its types and lengths are lax's)."""
from astjax.core.prims.elementwise import part_dtype

from .emit import LOWER, i64_array


@LOWER.register("fft")
def _fft(body, eqn, x):
    out = eqn.outs[0].aval
    fft_type, lengths = eqn.params["fft_type"], eqn.params["fft_lengths"]
    if fft_type == "RFFT":  # its operand is a float of the result's precision
        x = body.convert(x, part_dtype(out.dtype))
    return [body.op1("stablehlo.fft", [x], tuple(out.shape), out.dtype,
                     f"fft_type = #stablehlo<fft_type {fft_type}>, "
                     f"fft_length = {i64_array(lengths)}")]
