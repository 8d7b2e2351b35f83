"""Programs using jnp.fft and lax.fft, written against JAX's API (the tests run them on JAX)."""
import jax.numpy as jnp
from jax import lax


def spectrum_1d(x):
    return jnp.fft.fft(x)


def round_trip(z):
    return jnp.fft.ifft(jnp.fft.fft(z, norm="ortho"), norm="ortho")


def real_spectrum(x):
    return jnp.fft.rfft(x, n=10)


def real_inverse(z):
    return jnp.fft.irfft(z)


def odd_inverse(z):
    return jnp.fft.irfft(z, n=7, norm="forward")


def two_d(x):
    return jnp.fft.fft2(x)


def real_two_d(x):
    return jnp.fft.rfft2(x, s=(4, 6))


def real_inverse_n(z):
    return jnp.fft.irfftn(z, axes=(0, 1))


def along_axis(x):
    return jnp.fft.fft(x, axis=0, n=3)


def hermitian(z):
    return jnp.fft.hfft(z)


def inverse_hermitian(x):
    return jnp.fft.ihfft(x)


def shifted(x):
    return jnp.fft.fftshift(jnp.fft.fftn(x), axes=(-1,)) + jnp.fft.ifftshift(x)


def frequencies(x):
    return x * jnp.fft.fftfreq(x.shape[-1], d=0.5) + jnp.fft.rfftfreq(2 * x.shape[-1] - 2)[: x.shape[-1]]


def lax_direct(x):
    return lax.fft(x, lax.FftType.FFT, (x.shape[-1],))


def four_axes(x):
    return jnp.fft.rfftn(x)


VALUES = [  # (function, argument kind: "real" or "complex", shape)
    (spectrum_1d, "real", (8,)), (round_trip, "complex", (3, 5)), (real_spectrum, "real", (2, 12)),
    (real_inverse, "complex", (3, 5)), (odd_inverse, "complex", (4,)), (two_d, "complex", (3, 4, 5)),
    (real_two_d, "real", (2, 5, 5)), (real_inverse_n, "complex", (4, 3, 2)),
    (along_axis, "real", (5, 2)), (hermitian, "complex", (5,)), (inverse_hermitian, "real", (6,)),
    (shifted, "real", (3, 4)), (frequencies, "real", (2, 6)), (lax_direct, "complex", (2, 6)),
    (four_axes, "real", (2, 3, 2, 4)),
]


def power_loss(x):
    return jnp.sum(jnp.abs(jnp.fft.rfft(x * jnp.arange(x.shape[-1]))) ** 2)


def complex_loss(z):
    w = jnp.fft.ifft(jnp.fft.fft(z) * jnp.exp(1j * jnp.arange(z.shape[-1])))
    return jnp.sum(jnp.real(w) ** 3 - jnp.imag(w))


def inverse_loss(x):
    spectrum = jnp.fft.rfft(x)
    return jnp.sum(jnp.fft.irfft(spectrum * (1.0 + 0.5j), n=x.shape[-1]) ** 2)


def odd_inverse_loss(x):
    spectrum = jnp.fft.rfft2(jnp.sin(x))
    return jnp.sum(jnp.cos(jnp.fft.irfft2(spectrum * spectrum, s=x.shape)))


def filtered(x):
    kernel = jnp.fft.rfft(jnp.array([1.0, -2.0, 1.0, 0.0, 0.0, 0.0, 0.0]))
    return jnp.sum(jnp.tanh(jnp.fft.irfft(jnp.fft.rfft(x) * kernel, n=7)))


GRADS = [(power_loss, (6,)), (inverse_loss, (8,)), (odd_inverse_loss, (3, 5)), (filtered, (7,))]
COMPLEX_GRADS = [(complex_loss, (5,))]
