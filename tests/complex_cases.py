"""Programs on complex numbers, written against JAX's API (the test runs them on JAX too)."""
import jax.numpy as jnp
from jax import lax


def modulus_squared(z):
    return jnp.sum(jnp.abs(z) ** 2)


def phase_rotation(x):
    return jnp.sum(jnp.real(jnp.exp(1j * x) * (2.0 - 0.5j)))


def imag_of_product(z):
    return jnp.sum(jnp.imag(jnp.exp(z) * jnp.conj(z)))


def built_from_parts(x):
    z = lax.complex(x, 2.0 * x)
    return jnp.sum(jnp.abs(jnp.sin(z)) + jnp.angle(z))


def holomorphic_chain(z):
    w = jnp.sqrt(z * z + 1.0) / (z + 3.0)
    return jnp.sum(jnp.real(jnp.log(w)) * jnp.imag(w))


def mixed_real_complex(x, z):
    return jnp.sum(jnp.real(x * z) + x * jnp.abs(z))


def complex_values(z):
    return jnp.conj(z) * z + jnp.exp(z) - jnp.real(z) * 1j


SCALAR_LOSSES = [modulus_squared, phase_rotation, imag_of_product, built_from_parts,
                 holomorphic_chain]
