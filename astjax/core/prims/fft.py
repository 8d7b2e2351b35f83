"""The Fourier transform primitive, as `jax.lax.fft` defines it.

    fft(x, *, fft_type, fft_lengths)   the discrete Fourier transform over x's trailing
                                       len(fft_lengths) axes (any leading axes are a batch)

fft_type is one of
    "FFT"    complex -> complex, forward (NumPy's fftn, unnormalised)
    "IFFT"   complex -> complex, inverse (ifftn, scaled by 1/N)
    "RFFT"   real -> complex: the last axis keeps n // 2 + 1 frequencies (rfftn)
    "IRFFT"  complex -> real: the inverse of RFFT, the last axis becomes fft_lengths[-1] (irfftn)
"""
import numpy as np

from ...errors import DtypeError, ShapeError
from ..avals import AVal
from ..primitives import define
from .elementwise import complex_dtype, part_dtype

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")


def transform(x, *, fft_type, fft_lengths):
    """The primitive on NumPy (pocketfft), in the dtype its shape rule gives."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    out_dtype = _fft_abstract(AVal(x.shape, x.dtype), fft_type=fft_type,
                              fft_lengths=fft_lengths).dtype
    if fft_type == "FFT":
        out = np.fft.fftn(x, axes=axes)
    elif fft_type == "IFFT":
        out = np.fft.ifftn(x, axes=axes)
    elif fft_type == "RFFT":
        out = np.fft.rfftn(x, s=fft_lengths, axes=axes)
    else:
        out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    return np.asarray(out, out_dtype)


def _fft_abstract(x, *, fft_type, fft_lengths):
    if fft_type not in FFT_TYPES:
        raise ValueError(f"lax.fft: fft_type must be one of {', '.join(FFT_TYPES)}, "
                         f"not {fft_type!r}")
    k = len(fft_lengths)
    if not 1 <= k <= 3 or x.ndim < k:
        raise ShapeError(f"lax.fft transforms 1 to 3 trailing axes, got fft_lengths "
                         f"{tuple(fft_lengths)} for shape {x.shape}")
    lead, tail = tuple(x.shape[:-k]), tuple(x.shape[-k:])
    if fft_type == "RFFT":
        if x.dtype.kind not in "fiub":
            raise DtypeError(f"lax.fft RFFT needs a real operand, got {x.dtype.name}",
                             hint="use fft_type='FFT' for complex input")
        _check_lengths(tail, fft_lengths)
        out_tail = tuple(fft_lengths[:-1]) + (fft_lengths[-1] // 2 + 1,)
        return AVal(lead + out_tail, complex_dtype(_float(x.dtype)))
    if x.dtype.kind != "c":
        raise DtypeError(f"lax.fft {fft_type} needs a complex operand, got {x.dtype.name}",
                         hint="convert it first, e.g. x.astype(jnp.complex64)")
    if fft_type == "IRFFT":
        _check_lengths(tail[:-1], fft_lengths[:-1])
        if tail[-1] != fft_lengths[-1] // 2 + 1:
            raise ShapeError(f"lax.fft IRFFT of length {fft_lengths[-1]} needs "
                             f"{fft_lengths[-1] // 2 + 1} entries on the last axis, got "
                             f"{tail[-1]}")
        return AVal(lead + tuple(fft_lengths), part_dtype(x.dtype))
    _check_lengths(tail, fft_lengths)
    return AVal(x.shape, x.dtype)


def _float(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _check_lengths(tail, lengths):
    if tuple(tail) != tuple(lengths):
        raise ShapeError(f"lax.fft: fft_lengths {tuple(lengths)} must equal the transformed "
                         f"axes' sizes {tuple(tail)}")


define("fft", transform, _fft_abstract, kind="fft")
