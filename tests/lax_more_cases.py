"""Programs using the rest of jax.lax (bit functions, general gather/scatter, lax.reduce,
structural helpers, patches and locally connected convolutions), written against JAX's API:
the tests run each on JAX and on every astjax backend. Each takes a float64 vector x of 12
values in (-2, 2) and returns a tuple of arrays."""
import jax.numpy as jnp
import numpy as np
from jax import lax


def bit_functions(x):
    f32 = x.astype(jnp.float32)
    i32 = (x * 1e6).astype(jnp.int32)
    i64 = (x * 3e9).astype(jnp.int64) * 977
    u32 = lax.bitcast_convert_type(f32, jnp.uint32)
    return (u32, lax.bitcast_convert_type(x, jnp.int64), lax.bitcast_convert_type(u32, jnp.float32),
            lax.population_count(i32), lax.population_count(u32), lax.clz(i32), lax.clz(i64),
            lax.mulhi(i32, i32[::-1]), lax.mulhi(i64, i64[::-1]), lax.mulhi(u32, u32[::-1]),
            lax.nextafter(x, jnp.zeros_like(x)), lax.reduce_precision(x, 8, 7),
            lax.reduce_precision(x * 1e5, 5, 10), lax.reduce_precision(x * 1e-6, 5, 10))


def gathers(x):
    m = x.reshape(3, 4)
    rows = jnp.array([[2], [0], [5]])
    dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                    start_index_map=(0,))
    block = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(),
                                       start_index_map=(0, 1))
    starts = jnp.array([[0, 1], [1, 2], [2, 3]])
    return (lax.gather(m, rows, dn, (1, 4), mode="clip"),
            lax.gather(m, rows, dn, (1, 4), mode="fill", fill_value=-1.0),
            lax.gather(m, starts, block, (2, 2), mode="clip"),
            lax.index_take(m, jnp.array([[0, 1], [2, 3]]), (0, 1)))


def scatters(x):
    m = x.reshape(3, 4)
    rows = jnp.array([[2], [0], [2]])
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    points = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                         scatter_dims_to_operand_dims=(0, 1))
    where = jnp.array([[0, 0], [2, 3], [0, 0], [7, 1]])
    updates = jnp.arange(12.0).reshape(3, 4)
    return (lax.scatter_add(m, rows, updates, dn), lax.scatter(m, jnp.array([[1], [2], [0]]),
                                                               updates, dn),
            lax.scatter_sub(m, rows, updates, dn),
            lax.scatter_add(m, where, x[:4], points),
            lax.scatter_add(m, where, x[:4], points, mode="clip"))


def scatter_combiners(x):
    m = x.reshape(3, 4)
    rows = jnp.array([[2], [0], [2]])
    dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                     scatter_dims_to_operand_dims=(0,))
    updates = jnp.sin(jnp.arange(12.0)).reshape(3, 4)
    return (lax.scatter_min(m, rows, updates, dn), lax.scatter_max(m, rows, updates, dn),
            lax.scatter_mul(m, rows, updates, dn))


def scatter_apply(x):
    m = x.reshape(3, 4)
    points = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                         scatter_dims_to_operand_dims=(0, 1))
    where = jnp.array([[0, 0], [2, 3], [0, 0], [7, 1]])
    return (lax.scatter_apply(m, where, jnp.sin, points, update_shape=(4,)),
            lax.scatter_apply(m, where[:2], jnp.exp, points, update_shape=(2,), mode="clip"))


def reductions(x):
    m = x.reshape(3, 4)
    i = (x * 100).astype(jnp.int32).reshape(3, 4)
    pair_sum = lax.reduce((m, m * 2), (0.0, 0.0), lambda a, b: (a[0] + b[0], a[1] + b[1]), (1,))
    values, index = lax.approx_max_k(m, 2)
    low, low_index = lax.approx_min_k(m, 2, reduction_dimension=0)
    return (lax.reduce(m, 0.0, lax.add, (0,)), lax.reduce(m, -jnp.inf, lax.max, (0, 1)),
            lax.reduce(m, 1.0, lambda a, b: a * b, (1,)), pair_sum[0], pair_sum[1],
            lax.reduce_xor(i, (1,)), lax.reduce_xor(m > 0, (0,)), values, index, low, low_index)


def structure(x):
    m = x.reshape(3, 4)
    a, b = lax.split(x, (5, 7))
    return (lax.collapse(x.reshape(2, 3, 2), 1), lax.collapse(x.reshape(2, 3, 2), 0, 2),
            lax.broadcast_to_rank(x[:3], 3), lax.broadcast_like(x[:4], m), a, b,
            lax.stack([x, -x], 1), lax.unstack(m)[2], lax.tile(x[:3], (2,)),
            lax.select_n(x > 0, x, -x), lax.select_n((jnp.abs(x) * 1.4).astype(jnp.int32),
                                                     x, 2 * x, 3 * x),
            lax.batch_matmul(m.reshape(1, 3, 4), m.T.reshape(1, 4, 3)),
            lax.optimization_barrier(x) * 2, lax.empty((2, 3), jnp.float64).shape[0] + x)


def patches_and_local(x):
    image = jnp.tile(x, 6).reshape(2, 3, 4, 3)  # N H W C
    patches = lax.conv_general_dilated_patches(image, (2, 2), (1, 1), "VALID",
                                               dimension_numbers=("NHWC", "OIHW", "NHWC"))
    nchw = jnp.tile(x, 4).reshape(1, 2, 4, 6)
    kernel = jnp.sin(jnp.arange(360.0)).reshape(3, 8, 3, 5)  # O I H W
    local = lax.conv_general_dilated_local(nchw, kernel, (1, 1), "VALID", (2, 2),
                                           dimension_numbers=("NCHW", "OIHW", "NCHW"))
    return (patches, lax.conv_general_dilated_patches(nchw, (3, 2), (1, 2), "SAME"), local)


def special_functions(x):
    a = jnp.abs(x) * 3 + 0.2
    z = jnp.abs(x[::-1]) * 4
    p = jnp.abs(jnp.sin(x * 3)) * 0.98 + 0.01
    return (lax.igamma(a, z), lax.igammac(a, z), lax.igamma(a, 0.0 * z), lax.igammac(a, z + 30),
            lax.igamma_grad_a(a, z), lax.random_gamma_grad(a, z), lax.betainc(a, z + 0.5, p),
            lax.zeta(a + 1.5, z + 1.0), lax.bessel_i0e(4 * x), lax.bessel_i1e(5 * x))


def one_of_each_iteration(x):
    """The Numba backend's share of special_functions: one function per kind of loop (its cold
    compile of all ten takes over a minute)."""
    a = jnp.abs(x) * 3 + 0.2
    z = jnp.abs(x[::-1]) * 4
    p = jnp.abs(jnp.sin(x * 3)) * 0.98 + 0.01
    return lax.igammac(a, z), lax.betainc(a, z + 0.5, p), lax.bessel_i0e(4 * x)


def solvers(x):
    m = x.reshape(3, 4)
    a = m[:, :3] @ m[:, :3].T + 4 * jnp.eye(3)
    b = x[:3]

    def newton_sqrt(f, guess):
        return lax.fori_loop(0, 30, lambda i, y: y - f(y) / (2 * y), guess)

    root = lax.custom_root(lambda y: y * y - (x[:4] ** 2 + 1.0), jnp.ones(4), newton_sqrt,
                           lambda g, y: y)
    solved = lax.custom_linear_solve(lambda v: a @ v, b, lambda mv, r: jnp.linalg.solve(a, r))
    groups = jnp.array([1, 0, 2])
    grouped = lax.ragged_dot(x[:8].reshape(4, 2), x.reshape(3, 2, 2), groups)
    return root, solved, grouped


CASES = [bit_functions, gathers, scatters, scatter_combiners, scatter_apply, reductions, structure,
         patches_and_local, special_functions, solvers]


def shape_helpers():
    """(astjax value, JAX value) pairs are compared by the test: static shapes, no arrays."""
    return [
        ("conv_shape_tuple", ((2, 3, 9, 8), (4, 3, 3, 2), (2, 1), "SAME")),
        ("conv_shape_tuple", ((2, 3, 9, 8), (4, 3, 3, 2), (1, 1), ((1, 0), (2, 2)))),
        ("conv_general_shape_tuple", ((2, 9, 8, 3), (3, 2, 3, 4), (1, 2), "VALID",
                                      ("NHWC", "HWIO", "NHWC"))),
        ("conv_transpose_shape_tuple", ((2, 9, 8, 3), (3, 2, 3, 4), (2, 2), "SAME",
                                        ("NHWC", "HWIO", "NHWC"))),
        ("conv_general_permutations", ((("NHWC", "HWIO", "NCHW")),)),
        ("reduce_window_shape_tuple", ((7, 9), (2, 3), (2, 1), ((1, 0), (0, 2)), (1, 2), (2, 1))),
    ]


del np
