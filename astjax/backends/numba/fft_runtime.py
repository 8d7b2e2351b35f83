"""The Fourier transform for compiled code: NumPy's pocketfft, entered through object mode
(Numba has no FFT). The call costs microseconds and holds the GIL; the transform itself is
pocketfft's, as fast as NumPy's."""
import numba
import numpy as np

njit = numba.njit(cache=True, error_model="numpy")


def _fft_numpy(x, out, code, lengths):
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if code == 0:
        result = np.fft.fftn(x, axes=axes)
    elif code == 1:
        result = np.fft.ifftn(x, axes=axes)
    elif code == 2:
        result = np.fft.rfftn(x, s=lengths, axes=axes)
    else:
        result = np.fft.irfftn(x, s=lengths, axes=axes)
    out[...] = result


@njit
def fft_into(x, out, code, lengths):
    """out = the transform of x over its trailing len(lengths) axes; code 0..3 is FFT, IFFT,
    RFFT, IRFFT (lax.fft's fft_type)."""
    with numba.objmode():
        _fft_numpy(x, out, code, lengths)
