"""Programs whose dtypes depend on `jax_enable_x64`, run by `python x64_cases.py jax|astjax`
with JAX_ENABLE_X64=0: prints (pickled) each case's result dtype and values, eagerly, under
jit and under the other transformations, for test_x64 to compare astjax's with JAX's."""
import sys
import numpy as np

CASES = {
    "ones": lambda m, x, i: m.ones(3),
    "arange": lambda m, x, i: m.arange(4),
    "arange_f": lambda m, x, i: m.arange(0.0, 1.0, 0.25),
    "linspace": lambda m, x, i: m.linspace(0, 1, 5),
    "array_list": lambda m, x, i: m.array([1.0, 2.0]),
    "array_int": lambda m, x, i: m.array(3),
    "eye": lambda m, x, i: m.eye(2),
    "full": lambda m, x, i: m.full((2,), 1.5),
    "zeros_f64": lambda m, x, i: m.zeros(2, dtype=m.float64),
    "astype_f64": lambda m, x, i: x.astype(m.float64),
    "int_div": lambda m, x, i: m.arange(3) / 2,
    "int_times_float": lambda m, x, i: i * 0.5,
    "int_plus_f32": lambda m, x, i: i + x,
    "mean_int": lambda m, x, i: m.mean(i),
    "sum_int": lambda m, x, i: m.sum(i),
    "x_times_lit": lambda m, x, i: x * 2.0 + 1,
    "sqrt_int": lambda m, x, i: m.sqrt(i),
    "float64_scalar": lambda m, x, i: m.float64(1.5) * x,
    "argmax": lambda m, x, i: m.argmax(x),
    "cumsum_int": lambda m, x, i: m.cumsum(i),
    "matmul": lambda m, x, i: m.outer(x, x) @ x,
    "where": lambda m, x, i: m.where(x > 1, x, 0),
    "int_pow": lambda m, x, i: i ** 2,
    "mixed_u32": lambda m, x, i: i.astype(m.uint32) + i,
    "var": lambda m, x, i: m.var(x),
    "exp_int": lambda m, x, i: m.exp(i),
    "x64_input": lambda m, x, i: np.ones(3) + x,
}


def run(tag):
    if tag == "jax":
        import jax
        import jax.numpy as m
        lib = jax
    else:
        import astjax as lib
        import astjax.numpy as m
    x = np.array([0.5, 1.5, 2.5], np.float64)  # a 64-bit input: narrowed without x64
    i = np.array([1, 2, 3], np.int64)
    out = {}
    for name, case in CASES.items():
        for mode in ("eager", "jit"):
            if mode == "eager":
                xx, ii = m.asarray(x), m.asarray(i)
                r = case(m, xx, ii)
            else:
                r = lib.jit(lambda x, i, case=case: case(m, x, i))(x, i)
            out[(name, mode)] = (np.asarray(r).dtype.name, np.asarray(r, np.float64))
    for name, case in TRANSFORMS.items():
        r = case(lib, m, x, i)
        out[(name, "transform")] = (np.asarray(r).dtype.name, np.asarray(r, np.float64))
    return out


TRANSFORMS = {
    "grad": lambda lib, m, x, i: lib.grad(lambda x: m.sum(m.sin(x) * 2.0))(x),
    "grad_int_mix": lambda lib, m, x, i: lib.grad(lambda x, i: m.sum(x * i / 3))(x, i),
    "vmap": lambda lib, m, x, i: lib.vmap(lambda r: r * 2 + 1)(i),
    "vmap_mean": lambda lib, m, x, i: lib.vmap(lambda r: m.mean(r), in_axes=1)(m.outer(i, i)),
    "jacfwd": lambda lib, m, x, i: lib.jacfwd(lambda x: m.cumsum(x) ** 2)(x),
    "normal": lambda lib, m, x, i: lib.random.normal(lib.random.PRNGKey(0), (3,)),
    "uniform": lambda lib, m, x, i: lib.random.uniform(lib.random.PRNGKey(1), (3,)),
    "randint": lambda lib, m, x, i: lib.random.randint(lib.random.PRNGKey(2), (3,), 0, 9),
    "fori": lambda lib, m, x, i: lib.lax.fori_loop(0, 3, lambda k, c: c + k * 0.5, m.zeros(2)),
    "fori_jit": lambda lib, m, x, i: lib.jit(lambda c: lib.lax.fori_loop(
        0, 3, lambda k, c: c + k * 0.5, c))(m.zeros(2)),
    "scan": lambda lib, m, x, i: lib.lax.scan(lambda c, e: (c + e, c * e), 0.0, x)[1],
}


if __name__ == "__main__":
    import pickle
    pickle.dump(run(sys.argv[1]), sys.stdout.buffer)
