"""Random numbers as JAX makes them: counter-based threefry2x32, keys that are data.

Keys come raw (`PRNGKey(0)`, a uint32 array of shape (2,)) or typed (`key(0)`, a `KeyArray`
of `key<fry>` elements, see `keys.py`); every function takes both and returns keys of the kind
it was given. Functions of keys are pure, so they work under jit, vmap (a batch of keys) and
grad like any other code. The cipher is one primitive, `threefry2x32`, with a lowering on
every backend (on Numba its rounds fuse into the loop that turns the bits into floats).

Bit-identical to JAX 0.10.2 (with `jax_threefry_partitionable`, its default) for the same key,
shape and dtype: `PRNGKey`, `key`, `split`, `fold_in`, `bits`, `uniform`, `randint`,
`bernoulli`, `permutation`, `choice` (without `p`), `rademacher`, `categorical(...,
replace=False)`. The samplers built from one transcendental function of a uniform (`normal`,
`exponential`, `gumbel`, `laplace`, `logistic`, `cauchy`, `truncated_normal`, `categorical`,
`multivariate_normal`, `orthogonal`) follow JAX's algorithm on the same bits, agreeing to float
rounding (~1e-6 in float32), and so do the rejection samplers: `gamma`, `loggamma`, `beta`,
`dirichlet` (`_gamma.py`: each element from its own key, as JAX maps its scalar sampler) and
`poisson` (JAX's loops over whole arrays, in float32). Gamma samples are differentiable in
their shape parameter by implicit reparameterisation, as JAX's (so are beta and Dirichlet
samples, built from them).

The rest of `jax.random`'s samplers are in `_more.py` (its docstring says how each agrees with
JAX's).
"""
from ._base import (PRNGKey, bernoulli, bits, categorical, cauchy, choice, clone,
                    exponential, fold_in, gumbel, key, key_impl, laplace,
                    logistic, multivariate_normal, normal, orthogonal, permutation, poisson,
                    rademacher, randint, split, threefry2x32, truncated_normal, uniform,
                    wrap_key_data)
from ._gamma import beta, dirichlet, gamma, loggamma
from ._more import (ball, binomial, chisquare, double_sided_maxwell, f, generalized_normal,
                    geometric, key_dtype, lognormal, maxwell, multinomial, pareto,
                    rayleigh, t, triangular, wald, weibull_min)
from .keys import KeyArray, key_data

__all__ = ["KeyArray", "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits",
           "categorical", "cauchy", "chisquare", "choice", "clone", "dirichlet",
           "double_sided_maxwell", "exponential", "f", "fold_in", "gamma", "generalized_normal",
           "geometric", "gumbel", "key", "key_data", "key_dtype", "key_impl", "laplace",
           "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal",
           "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint",
           "rayleigh", "split", "t", "threefry2x32", "triangular", "truncated_normal", "uniform",
           "wald", "weibull_min", "wrap_key_data"]
