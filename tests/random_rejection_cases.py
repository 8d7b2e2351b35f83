"""Programs drawing from JAX's rejection samplers, written against JAX's API (the test runs
them on JAX too)."""
import jax
import jax.numpy as jnp


def rejection_draws(key):
    k = jax.random.split(key, 8)
    return {
        "gamma": jax.random.gamma(k[0], jnp.array([0.05, 0.5, 1.0, 2.0, 7.5])),
        "gamma_shape": jax.random.gamma(k[1], 3.0, (4, 3)),
        "loggamma": jax.random.loggamma(k[2], jnp.array([0.01, 0.5, 2.0])),
        "beta": jax.random.beta(k[3], 2.0, 3.0, (6,)),
        "dirichlet": jax.random.dirichlet(k[4], jnp.array([0.2, 2.0, 3.0]), (2,)),
        "poisson": jax.random.poisson(k[5], jnp.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1e3])),
        "t": jax.random.t(k[6], 3.0, (5,)),
        "chisquare_f": (jax.random.chisquare(k[7], 4.0, (3,)),
                        jax.random.f(k[7], 3.0, 5.0, (3,))),
    }
