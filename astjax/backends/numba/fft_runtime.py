"""The Fourier transform for compiled code: the primitive's NumPy implementation (pocketfft),
entered through object mode (Numba has no FFT). The call costs microseconds and holds the GIL;
the transform itself is pocketfft's, as fast as NumPy's."""
import numba

from astjax.core.prims.fft import transform

njit = numba.njit(cache=True, error_model="numpy")


def _transform_into(x, out, fft_type, fft_lengths):
    out[...] = transform(x, fft_type=fft_type, fft_lengths=tuple(fft_lengths))


@njit
def fft_into(x, out, fft_type, fft_lengths):
    """out = lax.fft of x over its trailing len(fft_lengths) axes."""
    with numba.objmode():
        _transform_into(x, out, fft_type, fft_lengths)
