"""Control flow: Python if/while/for on array values (converted), static control flow on shapes
and static arguments (specialised away), helpers and closures, and lax control flow with lambdas."""
import numpy as np
from hypothesis import strategies as st

import astjax.numpy as jnp
from astjax import lax

from .registry import Case, array, composite, one_array, positive, same_shape, scalar, shapes, side

DAMPING = 0.75                                 # global float
BASIS = np.array([1.0, -0.5, 0.25, 2.0])      # global array (implicit input)


# ---------------------------------------------------------------- if on array values
def sign_branch(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x + 1.0
    return y


def three_way(x):
    m = jnp.mean(x)
    if m > 0.5:
        y = jnp.sin(x)
        z = m
    elif m < -0.5:
        y = jnp.cos(x)
        z = -m
    else:
        y = x * x
        z = m * 0.0
    return y + z


def bool_ops_if(x, y):
    if (x.sum() > 0 and y.sum() > 0) or not x.max() < 1.0:
        out = x + y
    else:
        out = x - y
    return out


def chained_compare_if(x):
    if -1.0 < x.mean() <= 1.0:
        x = x * 3.0
    return x


def static_ndim(x):
    if x.ndim == 2:
        return jnp.sum(x * x, axis=1)
    return x * 2.0


def static_arg_branch(x, mode):
    if mode == "square":
        return x * x
    elif mode == "exp":
        return jnp.exp(-x * x)
    return x


# ---------------------------------------------------------------- while on array values
def newton_sqrt(a):
    """Trip count depends on a: lanes of a batch stop at different iterations."""
    y = a
    while jnp.abs(y * y - a) > 1e-5 * a:
        y = 0.5 * (y + a / y)
    return y


def newton_cbrt_vector(x):
    y = jnp.ones_like(x)
    n = 0
    while jnp.max(jnp.abs(y * y * y - x)) > 1e-4 and n < 50:
        y = y - (y * y * y - x) / (3.0 * y * y)
        n = n + 1
    return y, n


def halve_until_small(x):
    count = 0
    while jnp.sum(x * x) > 1.0:
        x = x * 0.5
        count += 1
    return x, count


def collatz_like(x):
    """Nested if inside a while: both branches run across iterations."""
    steps = 0
    total = x
    while total > 1.0 and steps < 20:
        if total > 3.0:
            total = total / 2.0
        else:
            total = total - 0.75
        steps = steps + 1
    return total, steps


# ---------------------------------------------------------------- for loops
def fixed_steps(x, n):
    """n is static: for i in range(n) unrolls."""
    for i in range(n):
        x = x * DAMPING + jnp.sin(x) / (i + 1)
    return x


def scan_rows(xs):
    """for row in xs over an array -> lax.scan."""
    acc = jnp.zeros_like(xs[0])
    peak = jnp.zeros_like(xs[0])
    for row in xs:
        acc = acc * DAMPING + row
        peak = jnp.maximum(peak, acc)
    return acc, peak


def loop_with_branch(xs):
    """A converted for whose body holds a converted if."""
    total = jnp.zeros((), dtype=xs.dtype)
    for row in xs:
        if jnp.sum(row) > 0:
            total = total + jnp.sum(row * row)
        else:
            total = total - 1.0
    return total


def enumerate_rows(xs):
    acc = jnp.zeros_like(xs[0])
    for i, row in enumerate(xs):
        acc = acc + row * i
    return acc


def zip_dot(xs, ys):
    acc = 0.0
    for x, y in zip(xs, ys):
        acc = acc + jnp.dot(x, y)
    return acc


def dynamic_range(x, n):
    """range() with an array bound -> a while_loop on a counter."""
    acc = x
    for i in range(n):
        acc = acc * 0.5 + i
    return acc


def fibonacci_swap(x):
    """Tuple assignment in a converted while."""
    a, b = x, x * 0.5
    while jnp.sum(b) < 20.0 and jnp.sum(b) > -20.0:
        a, b = b, a + b + 0.1
    return a, b


def ifexp_nested_if(x):
    y = x * 2.0 if x.sum() > 0 else -x
    if x.sum() > 0:
        if x.max() > 2.0:
            y = y * 3.0
        else:
            y = y + 1.0
    return y


# ---------------------------------------------------------------- helpers and closures
def _affine(x, w):
    return x * w + 1.0


def _scaled_tanh(x, w):
    return jnp.tanh(_affine(x, w)) * DAMPING


def helper_chain(x, w):
    return _scaled_tanh(x, w) + _affine(x, -w)


def global_basis(x):
    """Reads a global array (an implicit input) and a global float."""
    return x @ BASIS * DAMPING + jnp.sum(BASIS)


def nested_closure(x, y):
    def inner(z):
        return jnp.exp(-z * z) * y

    scale = jnp.max(y)
    g = lambda v: inner(v) + scale  # noqa: E731
    return g(x) + inner(x * 2.0)


# ---------------------------------------------------------------- lax control flow
def lax_cond_lambda(x):
    return lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: jnp.sin(v), x)


def lax_while_lambda(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 0.9 + 0.1), (0, x))


def lax_while_data(x):
    """A while_loop whose trip count depends on the data."""
    def cond(c):
        return jnp.sum(c[1] * c[1]) > 0.5

    def body(c):
        return c[0] + 1, c[1] * 0.7
    return lax.while_loop(cond, body, (0, x))


def lax_fori(x):
    return lax.fori_loop(0, 4, lambda i, acc: acc + jnp.cos(acc) * i, x)


def lax_scan_cumulative(xs):
    def step(carry, x):
        carry = carry * DAMPING + x
        return carry, carry * x
    return lax.scan(step, jnp.zeros_like(xs[0]), xs)


def lax_scan_length(x):
    def step(c, _):
        return c * 0.5 + 1.0, c
    return lax.scan(step, x, None, length=3)


def lax_cond_pytree(x, y):
    return lax.cond(x.sum() > y.sum(),
                    lambda a, b: {"s": a + b, "d": (a - b,)},
                    lambda a, b: {"s": a * b, "d": (b,)}, x, y)


def lax_switch(x, k):
    branches = [lambda v: v + 1.0, lambda v: v * v, lambda v: jnp.tanh(v)]
    return lax.switch(k, branches, x)


# ---------------------------------------------------------------- arguments
@composite
def _two_matching(draw, dtype):
    s = draw(shapes())
    return draw(array(dtype, s)), draw(array(dtype, s))


@composite
def _rows(draw, dtype):
    return (draw(array(dtype, (draw(side()), draw(side())))),)


@composite
def _fixed_steps_args(draw, dtype):
    return draw(array(dtype, shapes())), draw(side(0, 4))


@composite
def _static_arg_args(draw, dtype):
    return draw(array(dtype, shapes())), draw(st.sampled_from(["square", "exp", "id"]))


@composite
def _basis_args(draw, dtype):
    return (draw(array(dtype, (draw(side()), 4))),)


@composite
def _switch_args(draw, dtype):
    return draw(array(dtype, shapes())), np.int64(draw(st.integers(-1, 3)))


@composite
def _range_args(draw, dtype):
    return draw(array(dtype, shapes())), np.int64(draw(st.integers(0, 4)))


def _static_ndim_args(dtype):
    return one_array(shapes(1, 2))(dtype)


CASES = [
    Case("sign_branch", sign_branch, one_array(), differentiable=False, jax=False,
         tags=("if",)),
    Case("three_way", three_way, one_array(), differentiable=False, tags=("if", "elif")),
    Case("bool_ops_if", bool_ops_if, _two_matching, differentiable=False,
         tags=("if", "boolean")),
    Case("chained_compare_if", chained_compare_if, one_array(), differentiable=False,
         tags=("if", "chained-compare")),
    Case("static_ndim", static_ndim, _static_ndim_args, jax=True, tags=("static-if",)),
    Case("static_arg_branch", static_arg_branch, _static_arg_args, static_argnums=(1,),
         jax=True, tags=("static-if", "static")),
    Case("newton_sqrt", newton_sqrt, lambda dtype: positive(dtype, (), 0.5, 50.0).map(
        lambda a: (a,)), differentiable=False, tags=("while",)),
    Case("newton_cbrt_vector", newton_cbrt_vector, one_array(lo=0.5, hi=8.0),
         differentiable=False, tags=("while", "scalar-carry", "tuple-out")),
    Case("halve_until_small", halve_until_small, one_array(), differentiable=False,
         tags=("while", "scalar-carry")),
    Case("collatz_like", collatz_like, lambda dtype: scalar(dtype, 0.0, 12.0).map(
        lambda a: (a,)), differentiable=False, tags=("while", "if", "nested")),
    Case("fixed_steps", fixed_steps, _fixed_steps_args, static_argnums=(1,), jax=True,
         tags=("static-for", "global")),
    Case("scan_rows", scan_rows, _rows, differentiable=False, tags=("for-array", "global")),
    Case("loop_with_branch", loop_with_branch, _rows, differentiable=False,
         tags=("for-array", "if", "nested")),
    Case("enumerate_rows", enumerate_rows, _rows, jax=True, tags=("static-for", "enumerate")),
    Case("zip_dot", zip_dot, _two_matching, jax=True, tags=("static-for", "zip")),
    Case("dynamic_range", dynamic_range, _range_args, differentiable=False,
         tags=("for-range-dynamic",)),
    Case("fibonacci_swap", fibonacci_swap, one_array(), differentiable=False,
         tags=("while", "tuple-out")),
    Case("ifexp_nested_if", ifexp_nested_if, one_array(), differentiable=False,
         tags=("if", "ifexp", "nested")),
    Case("helper_chain", helper_chain, same_shape(2), jax=True, tags=("helpers",)),
    Case("global_basis", global_basis, _basis_args, jax=True, tags=("global", "matmul")),
    Case("nested_closure", nested_closure, same_shape(2), jax=True,
         tags=("closure", "lambda")),
    Case("lax_cond_lambda", lax_cond_lambda, one_array(), differentiable=False, jax=True,
         tags=("lax", "cond", "lambda")),
    Case("lax_while_lambda", lax_while_lambda, one_array(), jax=True,
         tags=("lax", "while", "lambda", "tuple-out")),
    Case("lax_while_data", lax_while_data, one_array(), differentiable=False, jax=True,
         tags=("lax", "while", "tuple-out")),
    Case("lax_fori", lax_fori, one_array(), jax=True, tags=("lax", "fori")),
    Case("lax_scan_cumulative", lax_scan_cumulative, _rows, jax=True, tags=("lax", "scan")),
    Case("lax_scan_length", lax_scan_length, one_array(), jax=True,
         tags=("lax", "scan", "tuple-out")),
    Case("lax_cond_pytree", lax_cond_pytree, _two_matching, differentiable=False, jax=True,
         tags=("lax", "cond", "pytree-out")),
    Case("lax_switch", lax_switch, _switch_args, differentiable=False, jax=True,
         tags=("lax", "switch")),
]
