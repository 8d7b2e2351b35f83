"""Derivatives of the Fourier transform, as JAX defines them (`jax._src.lax.fft`).

The transform is linear, so its JVP is itself. Its VJP is its transpose (JAX's convention for
complex values: no conjugation): the DFT matrix is symmetric, so FFT and IFFT are their own
transposes; RFFT (an FFT of a real input, truncated) transposes to the real part of an FFT of
the zero-padded cotangent; IRFFT to a scaled RFFT that counts the frequencies it folded twice.
"""
import math

import numpy as np

from astjax.core.bind import bind

from .rules import VJP, linear
from .util import aval

linear("fft")


@VJP.register("fft")
def _fft_vjp(ct, x, out, *, fft_type, fft_lengths):
    if fft_type in ("FFT", "IFFT"):
        return [bind("fft", ct, fft_type=fft_type, fft_lengths=fft_lengths)]
    if fft_type == "RFFT":
        return [_rfft_transpose(ct, x, fft_lengths)]
    return [_irfft_transpose(ct, fft_lengths)]


def _rfft_transpose(ct, x, fft_lengths):
    """real(FFT(ct padded with zeros to the full last axis))."""
    shape = aval(ct).shape
    missing = fft_lengths[-1] - shape[-1]
    config = ((0, 0, 0),) * (len(shape) - 1) + ((0, missing, 0),)
    full = bind("pad", ct, np.zeros((), aval(ct).dtype), config=config)
    real = bind("real", bind("fft", full, fft_type="FFT", fft_lengths=fft_lengths))
    return real if aval(real).dtype == aval(x).dtype else bind("convert", real,
                                                               dtype=aval(x).dtype.name)


def _irfft_transpose(ct, fft_lengths):
    """conj(RFFT(ct) * mask / N): the mask is 2 for the frequencies IRFFT used twice (all but
    the zero frequency and, for an even length, the Nyquist one)."""
    spectrum = bind("fft", ct, fft_type="RFFT", fft_lengths=fft_lengths)
    n = aval(spectrum).shape[-1]
    odd = fft_lengths[-1] % 2
    mask = np.concatenate([[1.0], np.full(n - 2 + odd, 2.0), np.ones(1 - odd)])
    mask = (mask / math.prod(fft_lengths)).astype(aval(ct).dtype)
    return bind("conj", bind("mul", spectrum, mask))
