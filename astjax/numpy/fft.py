"""astjax.numpy.fft: NumPy's discrete Fourier transforms with JAX's signatures, on the one `fft`
primitive (so each differentiates and batches through its rules).

As in JAX: the transform runs over at most three axes at once (more are done in turns), a
float32 input gives complex64, `n`/`s` zero-pad or truncate, `norm` is "backward" (default),
"ortho" or "forward".
"""
import math
import operator

import numpy as np

from .. import config
from ..core.prims.elementwise import part_dtype
from . import _util as u
from ._creation import _as_operand, arange
from ._elementwise import conj, multiply
from ._shape import moveaxis, roll
from ._util import bind
from ..errors import ShapeError

_NORMS = (None, "backward", "ortho", "forward")


# ---------------------------------------------------------------- the core
def _fft_core(name, fft_type, a, s, axes, norm):
    a = _as_operand(a)
    if norm not in _NORMS:
        raise ValueError(f"jnp.fft.{name}: norm must be one of 'backward', 'ortho', 'forward', "
                         f"not {norm!r}")
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n < 1 for n in s):
            raise ShapeError(f"jnp.fft.{name}: every length in s must be positive, got {s}")
    axes = _axes(name, u.ndim(a), s, axes)
    if s is None:
        s = tuple(u.shape(a)[ax] for ax in axes)
        if fft_type == "IRFFT":
            s = s[:-1] + (2 * (s[-1] - 1),)
    if len(s) != len(axes):
        raise ShapeError(f"jnp.fft.{name}: s {s} and axes {tuple(axes)} differ in length")
    a = _fit(a, axes, s if fft_type != "IRFFT" else s[:-1] + (s[-1] // 2 + 1,))
    a = _operand_dtype(a, fft_type)
    moved = moveaxis(a, axes, tuple(range(-len(axes), 0)))
    out = _transform(moved, fft_type, s)
    out = moveaxis(out, tuple(range(-len(axes), 0)), axes)
    scale = _norm_scale(name, norm, math.prod(s))
    return out if scale is None else multiply(out, np.asarray(scale, u.dtype_of(out)))


def _axes(name, rank, s, axes):
    if axes is None:
        axes = range(rank) if s is None else range(rank - len(s), rank)
    axes = [u.normalize_axis(ax, rank) for ax in axes]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"jnp.fft.{name}: repeated axis in {tuple(axes)}")
    if not axes:
        raise ShapeError(f"jnp.fft.{name}: no axes to transform")
    return axes


def _fit(a, axes, sizes):
    """a zero-padded or truncated to `sizes` along `axes`."""
    shape = list(u.shape(a))
    if all(shape[ax] == n for ax, n in zip(axes, sizes)):
        return a
    limits = list(shape)
    config_ = [(0, 0, 0)] * len(shape)
    for ax, n in zip(axes, sizes):
        if n < shape[ax]:
            limits[ax] = n
        else:
            config_[ax] = (0, n - shape[ax], 0)
    if limits != shape:
        a = bind("slice", a, start_indices=(0,) * len(shape), limit_indices=tuple(limits),
                 strides=None)
    if any(c != (0, 0, 0) for c in config_):
        a = bind("pad", a, np.zeros((), u.dtype_of(a)), config=tuple(config_))
    return a


def _operand_dtype(a, fft_type):
    """RFFT reads floats, the others complex numbers (integers take the default precision)."""
    dtype = u.dtype_of(a)
    if dtype.kind not in "fc":
        dtype = config.default_dtype("float")
    if fft_type == "RFFT":
        target = part_dtype(dtype)
        if dtype.kind == "c":
            raise TypeError("jnp.fft.rfft* needs real input, got a complex array")
    else:
        target = dtype if dtype.kind == "c" else np.result_type(dtype, np.complex64)
    return a if u.dtype_of(a) == target else bind("convert", a, dtype=np.dtype(target).name)


def _transform(x, fft_type, s):
    """lax.fft over the trailing len(s) axes, at most three at a time (XLA's limit): an RFFT
    takes the last axes first, an IRFFT the leading ones first."""
    if len(s) <= 3:
        return bind("fft", x, fft_type=fft_type, fft_lengths=tuple(s))
    inverse = fft_type in ("IFFT", "IRFFT")
    complex_type = "IFFT" if inverse else "FFT"
    rank = u.ndim(x)
    if fft_type == "IRFFT":  # complex axes first, the real one last
        x = _transform_axes(x, complex_type, s[:-1], rank - len(s))
        return bind("fft", x, fft_type="IRFFT", fft_lengths=tuple(s[-1:]))
    if fft_type == "RFFT":
        x = bind("fft", x, fft_type="RFFT", fft_lengths=tuple(s[-1:]))
        return _transform_axes(x, complex_type, s[:-1], rank - len(s))
    return _transform_axes(x, complex_type, s, rank - len(s))


def _transform_axes(x, fft_type, s, first):
    """A complex transform of axes first .. first+len(s)-1, in turns of up to three."""
    for start in range(0, len(s), 3):
        chunk = s[start:start + 3]
        axes = tuple(range(first + start, first + start + len(chunk)))
        moved = moveaxis(x, axes, tuple(range(-len(chunk), 0)))
        moved = bind("fft", moved, fft_type=fft_type, fft_lengths=tuple(chunk))
        x = moveaxis(moved, tuple(range(-len(chunk), 0)), axes)
    return x


def _norm_scale(name, norm, n):
    inverse = name.startswith("i")
    if norm in (None, "backward"):
        return None
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    return n if inverse else 1 / n


# ---------------------------------------------------------------- the transforms
def _one_axis(n, axis):
    return None if n is None else (n,), (axis,)


def fft(a, n=None, axis=-1, norm=None):
    return _fft_core("fft", "FFT", a, *_one_axis(n, axis), norm)


def ifft(a, n=None, axis=-1, norm=None):
    return _fft_core("ifft", "IFFT", a, *_one_axis(n, axis), norm)


def rfft(a, n=None, axis=-1, norm=None):
    return _fft_core("rfft", "RFFT", a, *_one_axis(n, axis), norm)


def irfft(a, n=None, axis=-1, norm=None):
    return _fft_core("irfft", "IRFFT", a, *_one_axis(n, axis), norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry (real spectrum): irfft of the conjugate,
    scaled by the output length (JAX's definition)."""
    a = conj(_as_operand(a))
    size = (u.shape(a)[axis] - 1) * 2 if n is None else n
    return multiply(_fft_core("hfft", "IRFFT", a, *_one_axis(n, axis), norm), size)


def ihfft(a, n=None, axis=-1, norm=None):
    a = _as_operand(a)
    size = u.shape(a)[axis] if n is None else n
    out = _fft_core("ihfft", "RFFT", a, *_one_axis(n, axis), norm)
    return multiply(conj(out), np.asarray(1 / size, part_dtype(u.dtype_of(out))))


def fftn(a, s=None, axes=None, norm=None):
    return _fft_core("fftn", "FFT", a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _fft_core("ifftn", "IFFT", a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    return _fft_core("rfftn", "RFFT", a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    return _fft_core("irfftn", "IRFFT", a, s, axes, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core("fft2", "FFT", a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core("ifft2", "IFFT", a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core("rfft2", "RFFT", a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core("irfft2", "IRFFT", a, s, axes, norm)


# ---------------------------------------------------------------- frequencies and shifts
def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d n)."""
    n = u.static_int(n, "fftfreq's n")
    k = arange(n, dtype=np.int64)
    k = bind("select", bind("lt", k, (n - 1) // 2 + 1), k, bind("sub", k, n))
    return _scaled(k, d, n, dtype)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """[0, 1, ..., n//2] / (d n)."""
    n = u.static_int(n, "rfftfreq's n")
    return _scaled(arange(n // 2 + 1, dtype=np.int64), d, n, dtype)


def _scaled(k, d, n, dtype):
    """k / (d n) in `dtype` (the default float type when None)."""
    dtype = np.dtype(dtype) if dtype is not None else config.default_dtype("float")
    k = bind("convert", k, dtype=dtype.name)
    d = np.asarray(d, dtype) if isinstance(d, (int, float)) else _as_operand(d)
    return bind("div", k, bind("mul", d, n))


def fftshift(x, axes=None):
    """The zero frequency moved to the centre: a roll by n // 2 along each axis."""
    return _shift(x, axes, lambda n: n // 2)


def ifftshift(x, axes=None):
    return _shift(x, axes, lambda n: -(n // 2))


def _shift(x, axes, amount):
    x = _as_operand(x)
    shape = u.shape(x)
    axes = tuple(range(len(shape))) if axes is None else (
        (axes,) if isinstance(axes, int) else tuple(axes))
    return roll(x, tuple(amount(shape[ax]) for ax in axes), axes)


__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
           "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
