"""Lowering of the Fourier transform: NumPy's pocketfft, called from compiled code through the
runtime's `fft_into` (Numba has no FFT of its own), which fills an output allocated here."""
from .emit import LOWER, dims, dtype_text, tuple_text
from .layout import out_aval

@LOWER.register("fft")
def _fft(fe, eqn, ins, outs):
    out = out_aval(eqn)
    source = fe.fresh(outs[0] + "_in")
    lengths = tuple_text([str(n) for n in eqn.params["fft_lengths"]])
    return [f"{source} = np.ascontiguousarray({ins[0]})",
            f"{outs[0]} = np.empty({tuple_text(dims(outs[0], out))}, {dtype_text(out.dtype)})",
            f"rt.fft_into({source}, {outs[0]}, {eqn.params['fft_type']!r}, {lengths})"]
