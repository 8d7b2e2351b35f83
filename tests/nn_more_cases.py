"""jax.nn.initializers and the block-scaled matmuls in JAX programs (tests/test_nn_more.py)."""
import jax
from jax.nn import initializers as init


def initialise(seed):
    """A small network's parameters drawn with each initializer from one key."""
    keys = jax.random.split(jax.random.PRNGKey(seed), 8)
    return (init.glorot_uniform()(keys[0], (4, 6)), init.glorot_normal()(keys[1], (4, 6)),
            init.he_normal()(keys[2], (3, 3, 2, 5)), init.lecun_uniform()(keys[3], (5, 2)),
            init.orthogonal()(keys[4], (6, 4)), init.truncated_normal(0.3)(keys[5], (7,)),
            init.delta_orthogonal()(keys[6], (3, 2, 4)), init.normal(0.5)(keys[7], (2, 2)),
            init.variance_scaling(2.0, "fan_out", "uniform", in_axis=0, out_axis=1)(
                keys[0], (3, 5, 2)),
            init.zeros(keys[1], (2,)), init.ones(keys[1], (2,)), init.constant(-1.5)(keys[1], (2,)))


def initialise_two(seed):
    keys = jax.random.split(jax.random.PRNGKey(seed), 2)
    return init.glorot_uniform()(keys[0], (4, 6)), init.he_normal()(keys[1], (3, 3, 2, 5))


def scaled_products(a, b, sa, sb):
    dot = jax.nn.scaled_dot_general(a[0], b[0], (((1,), (1,)), ((), ())))
    return jax.nn.scaled_matmul(a, b, sa, sb), dot
