"""`jax.scipy.signal`'s convolutions: `convolve` and `correlate` of N-dimensional arrays and
their 2-D forms, as SciPy defines them (modes full, same and valid), each one
`lax.conv_general_dilated` that slides the smaller operand, flipped, over the larger; and
`fftconvolve`, the product of the inputs' discrete Fourier transforms (along `axes`).

`convolve(..., method="fft")` computes the same sums directly (equal up to rounding)."""
import numpy as np

from .. import lax
from .. import numpy as jnp
from ..config import default_dtype
from ..numpy import _util as u
from ..numpy._creation import _as_operand

MODES = ("full", "same", "valid")


def convolve(in1, in2, mode="full", method="auto", precision=None):
    if method not in ("auto", "direct", "fft"):
        raise u.ShapeError(f"convolve: method={method!r}", hint="use 'auto', 'direct' or 'fft'")
    return _convolve(in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    return convolve(in1, jnp.flip(jnp.conj(_as_operand(in2))), mode, method, precision)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve(in1, in2, mode, precision)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    """The 2-D cross-correlation; where in2 is the larger operand, SciPy slides in1 over it
    (the full result conjugated), except in mode same, which keeps in1's frame."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = _as_operand(in1), _as_operand(in2)
    s1, s2 = u.shape(in1), u.shape(in2)
    second_larger = all(a <= b for a, b in zip(s1, s2))
    same_shape = all(a == b for a, b in zip(s1, s2))
    if mode == "same" or not second_larger or (mode == "valid" and same_shape):
        return jnp.flip(_convolve(jnp.flip(in1), jnp.conj(in2), mode, precision))
    result = _convolve(jnp.flip(in2), jnp.conj(in1), mode, precision)
    return result if mode == "valid" else jnp.conj(result)


def _check_2d(name: str, in1, in2, boundary, fillvalue) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise u.ShapeError(f"{name}: only boundary='fill' with fillvalue=0 is supported, as in "
                           "JAX", hint="pad the input with jnp.pad first for other boundaries")
    if u.ndim(_as_operand(in1)) != 2 or u.ndim(_as_operand(in2)) != 2:
        raise u.ShapeError(f"{name}: both inputs must be 2-dimensional",
                           hint="use jax.scipy.signal.convolve/correlate for other ranks")


def _convolve(in1, in2, mode: str, precision):
    if mode not in MODES:
        raise u.ShapeError(f"convolve: mode={mode!r}", hint=f"use one of {', '.join(MODES)}")
    in1, in2 = _as_operand(in1), _as_operand(in2)
    s1, s2 = tuple(u.shape(in1)), tuple(u.shape(in2))
    if len(s1) != len(s2):
        raise u.ShapeError(f"convolve: inputs of shapes {s1} and {s2} differ in rank",
                           hint="give both inputs the same number of dimensions")
    if 0 in s1 or 0 in s2:
        raise u.ShapeError(f"convolve: an input of shapes {s1} and {s2} is empty")
    in1, in2 = _inexact(in1, in2)
    if not (all(a >= b for a, b in zip(s1, s2)) or all(a <= b for a, b in zip(s1, s2))):
        raise u.ShapeError(f"convolve: of shapes {s1} and {s2}, neither is the smaller in "
                           "every dimension", hint="one input must fit inside the other")
    if all(a <= b for a, b in zip(s1, s2)):  # (the larger slides under the smaller)
        in1, in2 = in2, in1
    window = tuple(u.shape(in2))
    if mode == "valid":
        padding = [(0, 0)] * len(window)
    elif mode == "same":  # (centred on the second input's original frame)
        padding = [(k - 1 - (o - 1) // 2, k - o + (o - 1) // 2) for k, o in zip(window, s2)]
    else:
        padding = [(k - 1, k - 1) for k in window]
    result = lax.conv_general_dilated(in1[None, None], jnp.flip(in2)[None, None],
                                      (1,) * len(window), padding, precision=precision)
    return result[0, 0]


def fftconvolve(in1, in2, mode="full", axes=None):
    """The convolution along `axes` (all, by default) as the inverse transform of the product
    of the inputs' transforms, padded to the full length; the other axes must match."""
    in1, in2 = _inexact(_as_operand(in1), _as_operand(in2))
    s1, s2 = tuple(u.shape(in1)), tuple(u.shape(in2))
    if len(s1) != len(s2):
        raise u.ShapeError(f"fftconvolve: inputs of shapes {s1} and {s2} differ in rank",
                           hint="give both inputs the same number of dimensions")
    if mode not in MODES:
        raise u.ShapeError(f"fftconvolve: mode={mode!r}", hint=f"use one of {', '.join(MODES)}")
    axes = tuple(range(len(s1))) if axes is None else \
        tuple(sorted(u.normalize_axes(axes, len(s1))))
    if any(s1[i] != s2[i] for i in range(len(s1)) if i not in axes):
        raise u.ShapeError(f"fftconvolve: shapes {s1} and {s2} differ outside axes {axes}",
                           hint="the axes not convolved must have equal lengths")
    if mode == "valid" and all(s1[i] <= s2[i] for i in axes):
        in1, in2, s1, s2 = in2, in1, s2, s1  # (the larger input's frame)
    elif mode == "valid" and not all(s1[i] >= s2[i] for i in axes):
        raise u.ShapeError(f"fftconvolve: of shapes {s1} and {s2}, neither is the larger in "
                           "every axis", hint="mode='valid' needs one input to fit in the other")
    full = [s1[i] + s2[i] - 1 for i in axes]
    if all(s1[i] == 1 or s2[i] == 1 for i in axes):
        product = in1 * in2
    elif np.dtype(u.dtype_of(in1)).kind == "c":
        product = jnp.fft.ifftn(jnp.fft.fftn(in1, full, axes) * jnp.fft.fftn(in2, full, axes),
                                full, axes)
    else:
        product = jnp.fft.irfftn(jnp.fft.rfftn(in1, full, axes) * jnp.fft.rfftn(in2, full, axes),
                                 full, axes)
    wanted = {"full": full, "same": [s1[i] for i in axes],
              "valid": [s1[i] - s2[i] + 1 for i in axes]}[mode]
    for axis, length, keep in zip(axes, full, wanted):
        start = (length - keep) // 2
        product = lax.slice_in_dim(product, start, start + keep, axis=axis)
    return product


def _inexact(in1, in2):
    dtype = np.result_type(u.dtype_of(in1), u.dtype_of(in2))
    if dtype.kind not in "fc":
        dtype = default_dtype("float")
    return in1.astype(dtype), in2.astype(dtype)
