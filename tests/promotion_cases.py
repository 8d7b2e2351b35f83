"""Programs mixing integer, bool and float32 arrays, written against JAX's API (the test runs
them on JAX too): with jax_enable_x64 on, JAX keeps them in float32 where NumPy widens."""
import jax.numpy as jnp
import jax.scipy.special as special
import jax.scipy.stats as stats


def int_plus_float(i, f):
    return i + f, f - i.astype(jnp.int64), i * f * 2


def compared(i, f):
    return i < f, jnp.maximum(i, f), jnp.minimum(f, i.astype(jnp.int64))


def powers(i, f):
    return f ** i, jnp.power(jnp.abs(f) + 1, i % 3)


def float_functions_of_ints(i, f):
    return jnp.sqrt(i), jnp.exp(i * 0), jnp.sin(i), jnp.log1p(i), jnp.arctan2(i, i + 1)


def divisions(i, f):
    return i / (i + 1), jnp.true_divide(i, 3), f / i.astype(jnp.int64).clip(1)


def reductions(i, f):
    return jnp.mean(f > 0), jnp.mean(i), jnp.var(i), jnp.cumsum(i), jnp.sum(i)


def selected(i, f):
    return jnp.where(f > 0, i, f), jnp.clip(i, 0.5, f.max())


def distributions(i, f):
    return (stats.norm.logpdf(f), stats.gamma.logpdf(jnp.abs(f) + 0.1, 2.0),
            stats.t.logpdf(f, 3.0), stats.expon.cdf(i))


def python_numbers_chosen(i, f):
    """An array of Python numbers (a `where` between two) is weakly typed: float32 partners
    keep it float32."""
    sign = jnp.where(f > 0, 1.0, -1.0)
    return (sign * f, jnp.where(f > 1, 2, 3) * f, sign + 1.0, special.entr(jnp.abs(f)),
            special.gammasgn(f) * f)


CASES = [int_plus_float, compared, powers, float_functions_of_ints, divisions, reductions,
         selected, distributions, python_numbers_chosen]
