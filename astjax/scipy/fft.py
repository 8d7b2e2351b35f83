"""`jax.scipy.fft`: the discrete cosine transform of type 2 and its inverse (the types JAX
has), along one axis or several, each as one complex FFT of the same length.

The DCT-II, y[k] = 2 sum_n x[n] cos(pi k (2n + 1) / 2N), is 2 Re(V[k] exp(-i pi k / 2N)) for V
the FFT of x's even-indexed elements followed by its odd-indexed ones reversed. Its inverse
undoes each step: V[k] = (y[k] - i y[N - k]) exp(i pi k / 2N) / 2 (y[N] = 0), an inverse FFT,
and the elements put back in place. `norm="ortho"` scales y[0] by sqrt(1/4N) and the others by
sqrt(1/2N), making the transform orthonormal."""
import numpy as np

from .. import numpy as jnp
from ..errors import ShapeError
from ..numpy import fft as _fft
from ..numpy import _util as u

NORMS = (None, "backward", "ortho")


def dct(x, type=2, n=None, axis=-1, norm=None):
    return _one_axis(_dct, "dct", x, type, n, axis, norm)


def idct(x, type=2, n=None, axis=-1, norm=None):
    return _one_axis(_idct, "idct", x, type, n, axis, norm)


def _one_axis(transform, name, x, type, n, axis, norm):
    """`transform` of x along `axis`, padded or cut to n first; of a complex x, of its real
    and imaginary parts apart."""
    x = _checked(name, x, type, norm)
    if jnp.iscomplexobj(x):
        def part(p):
            return _one_axis(transform, name, p, type, n, axis, norm)
        return part(jnp.real(x)) + 1j * part(jnp.imag(x))
    axis = u.normalize_axis(axis, jnp.ndim(x))
    if n is not None:
        x = _fft._fit(x, [axis], [n])
    return transform(x, axis, jnp.shape(x)[axis], norm)


def _dct(x, axis, size, norm):
    v = jnp.concatenate([_along(x, axis, slice(0, None, 2)),
                         jnp.flip(_along(x, axis, slice(1, None, 2)), axis)], axis)
    y = 2 * jnp.real(jnp.fft.fft(v, axis=axis) * _twiddle(size, axis, jnp.ndim(x), -1, x))
    return _ortho(y, axis, size) if norm == "ortho" else y


def _idct(x, axis, size, norm):
    if norm == "ortho":
        x = _ortho(x, axis, size, inverse=True)
    zero = jnp.zeros_like(_along(x, axis, slice(0, 1)))
    mirrored = jnp.concatenate([zero, jnp.flip(_along(x, axis, slice(1, None)), axis)], axis)
    V = (x - 1j * mirrored) * _twiddle(size, axis, jnp.ndim(x), 1, x) / 2
    v = jnp.real(jnp.fft.ifft(V, axis=axis))
    half = (size + 1) // 2  # (the even-indexed elements, then the odd ones reversed)
    evens, odds = _along(v, axis, slice(0, half)), jnp.flip(_along(v, axis, slice(half, None)),
                                                             axis)
    return _interleaved(evens, odds, axis, size)


def dctn(x, type=2, s=None, axes=None, norm=None):
    """The DCT along each of `axes` in turn (it is separable)."""
    return _along_axes(dct, "dctn", x, type, s, axes, norm)


def idctn(x, type=2, s=None, axes=None, norm=None):
    return _along_axes(idct, "idctn", x, type, s, axes, norm)


def _along_axes(transform, name, x, type, s, axes, norm):
    x = _checked(name, x, type, norm)
    if s is not None:
        s = [s] if isinstance(s, int) else list(s)
        if len(s) > jnp.ndim(x):
            raise ShapeError(f"jax.scipy.fft.{name}: s has {len(s)} entries, more than the "
                             f"array's {jnp.ndim(x)} axes")
    axes = _fft._axes(name, jnp.ndim(x), s, [axes] if isinstance(axes, int) else axes)
    for k, axis in enumerate(axes):
        x = transform(x, type, None if s is None else s[k], axis, norm)
    return x


def _checked(name, x, type, norm):
    if type != 2:
        raise NotImplementedError(f"jax.scipy.fft.{name}: only type 2 is implemented (as in "
                                  f"JAX), not type {type}")
    if norm not in NORMS:
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not one of {NORMS}")
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(u.inexact_type_of(x))


def _along(x, axis, index):
    return x[(slice(None),) * axis + (index,)]


def _twiddle(size, axis, rank, sign, like):
    """exp(sign i pi k / 2N) for k along `axis`, in the complex dtype of `like` (computed in
    the function: the size may be symbolic)."""
    real = jnp.result_type(like)
    angle = _on_axis(jnp.arange(size, dtype=real) * (sign * 0.5 * np.pi) / size, axis, rank)
    return jnp.cos(angle) + 1j * jnp.sin(angle)


def _ortho(y, axis, size, inverse=False):
    first = _on_axis(jnp.arange(size) == 0, axis, jnp.ndim(y))
    # sqrt(1 / 4N) for the first, sqrt(1 / 2N) for the others
    scale = jnp.where(first, np.sqrt(0.5), 1.0) / jnp.sqrt(jnp.asarray(2 * size, jnp.result_type(y)))
    return y / scale if inverse else y * scale


def _on_axis(v, axis, rank):
    """The vector v laid along `axis` of an array of `rank` axes (length 1 on the others)."""
    return jnp.reshape(v, [-1 if a == axis else 1 for a in range(rank)])


def _interleaved(evens, odds, axis, size):
    """x[2m] = evens[m], x[2m + 1] = odds[m] along `axis`."""
    if jnp.shape(odds)[axis] < jnp.shape(evens)[axis]:  # (an odd length: pad, then cut)
        pad = [(0, 1) if a == axis else (0, 0) for a in range(jnp.ndim(odds))]
        odds = jnp.pad(odds, pad)
    pairs = jnp.stack([evens, odds], axis=axis + 1)
    shape = list(jnp.shape(evens))
    shape[axis] = 2 * shape[axis]
    return _along(jnp.reshape(pairs, shape), axis, slice(0, size))
