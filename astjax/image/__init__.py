"""`jax.image.resize`: an image resampled to a new shape, as JAX resamples it.

Each axis whose length changes is contracted with a constant weight matrix (input positions by output
positions): the method's kernel evaluated at the distance between each output pixel's centre,
mapped back into the input, and each input pixel, widened by the downsampling factor when
`antialias` (a low-pass filter), and normalised per output pixel. `nearest` reads the input
pixel under each output centre; `area` weighs by the overlap of the pixels' extents."""
import enum

import numpy as np

from .. import numpy as jnp
from ..config import default_dtype
from ..numpy import _util as u
from ..numpy._creation import _as_operand


class ResizeMethod(enum.Enum):
    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(name: str):
        for method, names in _NAMES.items():
            if name in names:
                return method
        raise u.ShapeError(f"resize: unknown method {name!r}",
                           hint=f"use one of {', '.join(n for ns in _NAMES.values() for n in ns)}")


_NAMES = {ResizeMethod.NEAREST: ("nearest",),
          ResizeMethod.LINEAR: ("linear", "bilinear", "trilinear", "triangle"),
          ResizeMethod.LANCZOS3: ("lanczos3",), ResizeMethod.LANCZOS5: ("lanczos5",),
          ResizeMethod.CUBIC: ("cubic", "bicubic", "tricubic"),
          ResizeMethod.CUBIC_PYTORCH: ("cubic-pytorch", "bicubic-pytorch"),
          ResizeMethod.AREA: ("area",)}


# The kernels, evaluated in NumPy at compile time (the weight matrices are constants)
def _triangle(x):
    return np.maximum(0, 1 - np.abs(x))


def _keys_cubic(x):
    """Keys' cubic kernel with a = -0.5 (Pillow's, TensorFlow's)."""
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


def _lanczos(radius: int):
    def kernel(x):
        y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(x > 1e-3, y / np.where(x != 0, np.pi ** 2 * x ** 2, 1), 1)
        return np.where(x > radius, 0.0, value)
    return kernel


_KERNELS = {ResizeMethod.LINEAR: _triangle, ResizeMethod.CUBIC: _keys_cubic,
            ResizeMethod.LANCZOS3: _lanczos(3), ResizeMethod.LANCZOS5: _lanczos(5)}


def resize(image, shape, method, antialias=True, precision=None):
    image = _as_operand(image)
    shape = tuple(int(d) for d in shape)
    if len(shape) != u.ndim(image):
        raise u.ShapeError(f"resize: shape {shape} for an image of rank {u.ndim(image)}",
                           hint="give a length for every axis")
    method = ResizeMethod.from_string(method) if isinstance(method, str) else method
    if method is ResizeMethod.CUBIC_PYTORCH:
        if not antialias:
            raise u.ShapeError("resize: 'cubic-pytorch' without antialias is not supported",
                               hint="use 'cubic', or antialias=True")
        method = ResizeMethod.CUBIC
    changed = [d for d in range(len(shape)) if u.shape(image)[d] != shape[d]]
    if method is ResizeMethod.NEAREST:
        return _nearest(image, shape, changed)
    dtype = np.dtype(u.dtype_of(image))
    if dtype.kind not in "fc":
        image = image.astype(default_dtype("float"))
    for d in changed:
        weights = _weights(u.shape(image)[d], shape[d], method, antialias, u.dtype_of(image))
        image = jnp.moveaxis(jnp.tensordot(image, weights, axes=([d], [0])), -1, d)
    return image


def _nearest(image, shape, changed):
    """The input pixel under each output pixel's centre, axis by axis."""
    for d in changed:
        size, length = int(u.shape(image)[d]), shape[d]
        centres = (np.arange(length, dtype=np.float32) + 0.5) * np.float32(size / length)
        image = jnp.take(image, np.floor(centres).astype(np.int32), axis=d)
    return image


def _weights(size: int, length: int, method, antialias: bool, dtype):
    """The (size, length) matrix taking an axis of `size` input pixels to `length` outputs."""
    size = int(size)  # (a symbolic length is relied on: the weights are constants)
    scale = length / size if length else 1.0
    inv = 1.0 / scale
    centres = (np.arange(length, dtype=np.float64) + 0.5) * inv - 0.5  # (in input pixels)
    if method is ResizeMethod.AREA:
        left = np.arange(length, dtype=np.float64) * inv
        inputs = np.arange(size, dtype=np.float64)
        weights = np.maximum(0.0, np.minimum(left + inv, inputs[:, None] + 1.0)
                             - np.maximum(left, inputs[:, None]))
    else:
        widen = max(inv, 1.0) if antialias else 1.0
        distance = np.abs(centres[None, :] - np.arange(size, dtype=np.float64)[:, None]) / widen
        weights = _KERNELS[method](distance)
    total = weights.sum(axis=0, keepdims=True)
    weights = np.where(np.abs(total) > 1000.0 * float(np.finfo(np.float32).eps),
                       weights / np.where(total != 0, total, 1), 0)
    if method is not ResizeMethod.AREA:  # (an output centre outside the input reads nothing)
        inside = (centres >= -0.5) & (centres <= size - 0.5)
        weights = np.where(inside[None, :], weights, 0)
    return weights.astype(dtype)
