"""Every reverse-mode rule in the primitive table, held to central finite differences (float64).

For a primitive p applied to operands x, and random u (shaped like p's output) and v (like x):

    <vjp_p(x)(u), v>  ==  <u, (p(x + eps v) - p(x - eps v)) / 2 eps>

The left side is what astjax generates: grad of `sum(p(*x) * u)` (ad_cases.weighted binds p
itself, so exactly that rule runs). The right side uses only the primitive's NumPy
implementation. Shapes, parameters (axes, permutations, slices, dimension numbers, ...) and a
seed come from hypothesis; values are drawn from a domain where each primitive is smooth.
"""
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ad_cases
import astjax
from astjax.core.table import PRIMITIVES
from astjax.errors import TransformError
from astjax.rewriters.ad import VJP

EPS = 1e-6
RULES = settings(max_examples=10, deadline=None)

# Rules not checked by the FD property here, and why.
NOT_HERE = {
    "cond": "control flow: test_grad.py (lax.cond, Python if, early return)",
    "switch": "control flow: test_grad.py (lax.switch, each of three branches)",
    "scan": "control flow: test_grad.py (lax.scan RNN, for over rows, fori_loop)",
    "while_loop_taped": "control flow: test_grad.py (data-dependent while, break)",
    "stop_gradient": "test_grad.py (lax.stop_gradient blocks the gradient, as in JAX)",
    "custom_jvp_call": "user-supplied rules (astjax.custom_jvp): not a table rule to check",
    "custom_vjp_call": "user-supplied rules (astjax.custom_vjp): not a table rule to check",
    "checkpoint": "test_grad.py (checkpoint inside a function, against jax.grad and FD)",
    "psum": "collective: test_pmap.py (grad through psum and pmean against FD)",
    "pmax": "collective: test_pmap.py",
    "pmin": "collective: test_pmap.py",
    "all_gather": "collective: test_pmap.py (grad through all_gather against FD)",
    "process_allreduce": "across MPI ranks: test_distributed.py (grads through psum, pmax, "
                         "pmin and pmean on 2 ranks against one process and FD)",
    "process_allgather": "across MPI ranks: test_distributed.py (grad through all_gather)",
    "ppermute": "collective: test_pmap.py (grad through ppermute against FD)",
    "axis_index": "collective: no derivative (an integer)",
    "process_index": "across MPI ranks: no derivative (an integer)",
    "pure_callback": "no derivative, as in JAX: test_callbacks.py (differentiating through one "
                     "is an error naming the line; one of values not differentiated is fine)",
    "io_callback": "no derivative, as in JAX: test_callbacks.py",
    "vma_sum": "carries a gradient inside shard_map (linear, the identity per device): "
               "test_sharding.py (data-parallel gradients against JAX)",
    "undefined_derivative": "stands for a callback's missing derivative: test_callbacks.py",
    "debug_callback": "derivatives see through it: test_callbacks.py (grad of a watched "
                      "function)",
    "conv_general_dilated": "test_convolution.py (both operands, every layout and group kind, "
                            "against FD)",
    **{name: "test_linalg.py (through jnp.linalg and jax.scipy.linalg, against jax.grad and "
             "FD)" for name in ("cholesky", "triangular_solve", "lu", "qr", "eigh", "svd")},
    **{name: "test_complex.py (complex operands: the FD here is real; against jax.grad and "
             "FD in real and imaginary directions)" for name in ("real", "imag", "conj",
                                                                 "complex")},
    "fft": "test_fft.py (every fft_type, against jax.grad and FD, real and complex inputs)",
    "eig": "test_linalg_more.py (eigenvalues against jax.grad and FD, real and complex "
           "matrices; eigenvector derivatives refused, as in JAX)",
    "schur": "test_linalg_more.py (no derivative, as in JAX: the rule refuses a tangent)",
    "bitcast_convert_type": "no derivative (a reinterpretation of the bits, as in JAX): "
                            "test_lax_more.py",
}
# Piecewise constant, or a non-float result: grad must give exactly zero (and FD agrees).
ZERO_DERIVATIVE = {"sign", "floor", "ceil", "round", "floor_divide", "argmax", "argmin",
                   "argsort", "is_finite", "eq", "ne", "lt", "le", "gt", "ge"}
# No float operand (booleans, integers) or no operand at all: nothing can be differentiated, so
# the rule is called directly and must answer None for every operand.
NO_FLOAT_OPERAND = {
    "reduce_and": ([np.array([True, False])], {"axes": (0,)}),
    "reduce_or": ([np.array([True, False])], {"axes": (0,)}),
    "bitwise_and": ([np.array([1, 2]), np.array([3, 1])], {}),
    "bitwise_or": ([np.array([1, 2]), np.array([3, 1])], {}),
    "bitwise_xor": ([np.array([True]), np.array([False])], {}),
    "bitwise_not": ([np.array([1, 2])], {}),
    "shift_left": ([np.array([1, 2], np.uint32), np.array([3, 1], np.uint32)], {}),
    "shift_right_logical": ([np.array([8, 2], np.uint32), np.array([3, 1], np.uint32)], {}),
    "shift_right_arithmetic": ([np.array([-8, 2], np.int32), np.array([3, 1], np.int32)], {}),
    "iota": ([], {"dtype": "float64", "shape": (3,), "dimension": 0}),
    "debug_print": ([np.array(1.5)], {"fmt": "{}"}),
    "threefry2x32": ([np.array(1, np.uint32), np.array(2, np.uint32),
                      np.array([0, 0], np.uint32), np.array([0, 1], np.uint32)], {}),
}


@dataclass
class Example:
    operands: list
    params: dict = field(default_factory=dict)
    diff: tuple = (0,)              # positions of the operands to differentiate
    literal: tuple = None           # (position, value): a binary op's Python-float operand


# ---------------------------------------------------------------- drawing values
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
NONSCALAR = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


def rng_of(data):
    return np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))


def uniform(rng, shape, domain):
    """Values in (lo, hi); with away=True, magnitudes in (lo, hi) of random sign."""
    lo, hi, *away = domain
    x = rng.uniform(lo, hi, shape)
    return np.asarray(x * rng.choice([-1.0, 1.0], np.shape(x)) if away else x)


def subset(data, n, label="axes"):
    return tuple(sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n), label=label))) \
        if n else ()


# ---------------------------------------------------------------- elementwise
ANY, SMALL, POSITIVE, OPEN = (-3.0, 3.0), (-2.0, 2.0), (0.2, 4.0), (-0.9, 0.9)
AWAY = (0.3, 3.0, "away")   # magnitudes in (0.3, 3) of either sign
UNARY = {
    "neg": ANY, "abs": AWAY, "sqrt": POSITIVE, "rsqrt": POSITIVE, "cbrt": AWAY,
    "exp": SMALL, "exp2": SMALL, "expm1": SMALL,
    "log": POSITIVE, "log1p": (-0.8, 3.0), "log2": POSITIVE, "log10": POSITIVE,
    "sin": ANY, "cos": ANY, "tan": (-1.2, 1.2), "asin": OPEN, "acos": OPEN, "atan": ANY,
    "sinh": SMALL, "cosh": SMALL, "tanh": SMALL, "asinh": ANY, "acosh": (1.2, 3.0),
    "atanh": OPEN, "logistic": (-4.0, 4.0), "erf": SMALL, "erfc": SMALL, "erf_inv": OPEN,
    "lgamma": (0.5, 4.0), "digamma": (0.5, 4.0), "is_finite": ANY,
    # zero derivative (values generic, so FD steps never cross a jump)
    "sign": AWAY, "floor": ANY, "ceil": ANY, "round": ANY,
}
BINARY = {  # (domain of x, domain of y)
    "add": (ANY, ANY), "sub": (ANY, ANY), "mul": (ANY, ANY), "div": (ANY, (0.5, 3.0, "away")),
    "pow": ((0.25, 3.0), SMALL), "atan2": (AWAY, AWAY), "logaddexp": (ANY, ANY),
    "rem": (ANY, (0.5, 3.0, "away")), "max": (ANY, ANY), "min": (ANY, ANY),
    "floor_divide": (ANY, (0.5, 3.0, "away")),
    **{name: (ANY, ANY) for name in ("eq", "ne", "lt", "le", "gt", "ge")},
}


def unary(domain):
    def draw(data):
        return Example([uniform(rng_of(data), data.draw(SHAPES, label="shape"), domain)])
    return draw


def binary(dx, dy):
    def draw(data):
        rng = rng_of(data)
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
        x, y = (uniform(rng, s, d) for s, d in zip(shapes.input_shapes, (dx, dy)))
        position = data.draw(st.sampled_from([None, 0, 1]), label="literal operand")
        if position is None:
            return Example([x, y], diff=(0, 1))
        constant = float(uniform(rng, (), (dx, dy)[position]))
        operands = [constant, y] if position == 0 else [x, constant]
        return Example(operands, diff=(1 - position,), literal=(position, constant))
    return draw


def draw_select(data):
    rng = rng_of(data)
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=4))
    pred = rng.random(shapes.input_shapes[0]) < 0.5
    a, b = (uniform(rng, s, ANY) for s in shapes.input_shapes[1:])
    return Example([pred, a, b], diff=(1, 2))


def draw_clamp(data):
    rng = rng_of(data)
    shape = data.draw(SHAPES, label="shape")
    lo_shape, hi_shape = (data.draw(st.sampled_from([(), shape]), label=n) for n in ("lo", "hi"))
    lo, hi = uniform(rng, lo_shape, (-2.0, -0.5)), uniform(rng, hi_shape, (0.5, 2.0))
    return Example([lo, uniform(rng, shape, ANY), hi], diff=(0, 1, 2))


def draw_convert(data):
    return Example([uniform(rng_of(data), data.draw(SHAPES), ANY)], {"dtype": "float64"})


# ---------------------------------------------------------------- reductions
def reduction(domain, name_of_axes="axes"):
    def draw(data):
        shape = data.draw(NONSCALAR, label="shape")
        if name_of_axes == "axes":
            params = {"axes": subset(data, len(shape))}
        else:
            params = {"axis": data.draw(st.integers(0, len(shape) - 1)), "index_dtype": "int64"}
        return Example([uniform(rng_of(data), shape, domain)], params)
    return draw


def cumulative(domain):
    def draw(data):
        shape = data.draw(NONSCALAR, label="shape")
        params = {"axis": data.draw(st.integers(0, len(shape) - 1)),
                  "reverse": data.draw(st.booleans())}
        return Example([uniform(rng_of(data), shape, domain)], params)  # ties: probability 0
    return draw


# ---------------------------------------------------------------- shape
def draw_broadcast_in_dim(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    rank = len(shape) + data.draw(st.integers(0, 2), label="new axes")
    dims = tuple(sorted(data.draw(st.permutations(range(rank)))[:len(shape)]))
    out = [data.draw(st.integers(1, 3)) for _ in range(rank)]
    for d, n in zip(dims, shape):
        out[d] = n if n != 1 else out[d]   # size-1 operand axes may be stretched
    params = {"shape": tuple(out), "broadcast_dimensions": dims}
    return Example([uniform(rng_of(data), shape, ANY)], params)


def draw_reshape(data):
    shape = data.draw(SHAPES, label="shape")
    size, new = int(np.prod(shape)), []
    while size > 1 and data.draw(st.booleans(), label="split again"):
        factor = data.draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
        new.append(factor)
        size //= factor
    new.append(size)
    new = data.draw(st.permutations(new))
    return Example([uniform(rng_of(data), shape, ANY)], {"new_sizes": tuple(new)})


def draw_transpose(data):
    shape = data.draw(SHAPES, label="shape")
    perm = tuple(data.draw(st.permutations(range(len(shape))), label="permutation"))
    return Example([uniform(rng_of(data), shape, ANY)], {"permutation": perm})


def draw_rev(data):
    shape = data.draw(SHAPES, label="shape")
    return Example([uniform(rng_of(data), shape, ANY)], {"dimensions": subset(data, len(shape))})


def draw_slice(data):
    shape = data.draw(NONSCALAR, label="shape")
    starts, limits, strides = [], [], []
    for n in shape:
        start = data.draw(st.integers(0, n))
        starts.append(start)
        limits.append(data.draw(st.integers(start, n)))
        strides.append(data.draw(st.integers(1, 3)))
    params = {"start_indices": tuple(starts), "limit_indices": tuple(limits),
              "strides": data.draw(st.sampled_from([None, tuple(strides)]))}
    return Example([uniform(rng_of(data), shape, ANY)], params)


def draw_pad(data):
    """Non-negative low/high padding (negative: see test_pad_with_negative_padding)."""
    shape = data.draw(NONSCALAR, label="shape")
    config = tuple((data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2)),
                    data.draw(st.integers(0, 2))) for _ in shape)
    rng = rng_of(data)
    return Example([uniform(rng, shape, ANY), uniform(rng, (), ANY)], {"config": config},
                   diff=(0, 1))


def draw_concatenate(data):
    shape = data.draw(NONSCALAR, label="shape")
    dim = data.draw(st.integers(0, len(shape) - 1), label="dimension")
    rng = rng_of(data)
    operands = []
    for _ in range(data.draw(st.integers(1, 3), label="operands")):
        part = list(shape)
        part[dim] = data.draw(st.integers(1, 3))
        operands.append(uniform(rng, tuple(part), ANY))
    return Example(operands, {"dimension": dim}, diff=tuple(range(len(operands))))


def draw_full(data):
    shape = data.draw(SHAPES, label="shape")
    return Example([uniform(rng_of(data), (), ANY)], {"shape": shape, "dtype": "float64"})


# ---------------------------------------------------------------- indexing
def draw_take(data):
    """take along axis 0 (axis >= 1: see test_take_along_axis_1)."""
    shape, axis = data.draw(NONSCALAR, label="shape"), 0
    rng = rng_of(data)
    n = shape[axis]
    # Out-of-range indices are clamped by take (JAX's "clip" mode); the rule must agree.
    index = rng.integers(-n - 2, n + 2, data.draw(SHAPES.filter(lambda s: len(s) <= 2)))
    return Example([uniform(rng, shape, ANY), index], {"axis": axis})


def draw_take_along_axis(data):
    shape = data.draw(NONSCALAR, label="shape")
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    index_shape = tuple(data.draw(st.integers(1, 4)) if i == axis else
                        data.draw(st.sampled_from([n, 1])) for i, n in enumerate(shape))
    rng = rng_of(data)
    index = rng.integers(-shape[axis], shape[axis], index_shape)
    return Example([uniform(rng, shape, ANY), index], {"axis": axis})


def draw_scatter(data):
    """scatter along axis 0, as `x.at[...]` binds it (on the flattened array), in range."""
    mode = data.draw(st.sampled_from(["set", "add", "mul", "min", "max"]), label="mode")
    shape = data.draw(NONSCALAR, label="shape")
    axis, n = 0, shape[0]
    rng = rng_of(data)
    if mode != "set":  # repeats combine (ties between random floats have probability 0)
        positions = rng.integers(0, n, data.draw(st.integers(1, 5), label="updates"))
    else:  # "set" with repeated indices has no derivative; keep them distinct
        positions = rng.permutation(n)[:data.draw(st.integers(1, n), label="updates")]
    index = np.where(rng.random(positions.shape) < 0.3, positions - n, positions)  # some negative
    rest = shape[:axis] + shape[axis + 1:]
    update_shape = data.draw(st.sampled_from([index.shape + rest, ()]), label="update shape")
    operands = [uniform(rng, shape, ANY), index, uniform(rng, update_shape, ANY)]
    return Example(operands, {"axis": axis, "mode": mode}, diff=(0, 2))


def draw_take_along_axis_transpose(data):
    """The transpose of take_along_axis (the cotangent it adds up); linear in its first operand."""
    gather = draw_take_along_axis(data)
    x, index = gather.operands
    ct = uniform(rng_of(data), PRIMITIVES["take_along_axis"].impl(x, index, **gather.params).shape,
                 ANY)
    return Example([ct, index], {"shape": x.shape, "axis": gather.params["axis"]})


def _starts(data, rng, shape):
    # Starts out of range are clamped so that the slice fits, as in lax.
    return [np.int64(rng.integers(-2, n + 2)) for n in shape]


def draw_dynamic_slice(data):
    shape = data.draw(NONSCALAR, label="shape")
    sizes = tuple(data.draw(st.integers(0, n)) for n in shape)
    rng = rng_of(data)
    return Example([uniform(rng, shape, ANY), *_starts(data, rng, shape)], {"slice_sizes": sizes})


def draw_dynamic_update_slice(data):
    shape = data.draw(NONSCALAR, label="shape")
    sizes = tuple(data.draw(st.integers(1, n)) for n in shape)
    rng = rng_of(data)
    operands = [uniform(rng, shape, ANY), uniform(rng, sizes, ANY), *_starts(data, rng, shape)]
    return Example(operands, diff=(0, 1))


# ---------------------------------------------------------------- contractions, sorting
def draw_dot_general(data):
    counts = {kind: data.draw(st.integers(0, hi), label=kind)
              for kind, hi in (("batch", 1), ("contract", 2), ("lhs free", 2), ("rhs free", 1))}
    sizes = {kind: [data.draw(st.integers(1, 3)) for _ in range(k)] for kind, k in counts.items()}
    lhs_kinds = [("batch", i) for i in range(counts["batch"])] + \
        [("contract", i) for i in range(counts["contract"])] + \
        [("lhs free", i) for i in range(counts["lhs free"])]
    rhs_kinds = [k for k in lhs_kinds if k[0] != "lhs free"] + \
        [("rhs free", i) for i in range(counts["rhs free"])]
    lhs_kinds = data.draw(st.permutations(lhs_kinds), label="lhs layout")
    rhs_kinds = data.draw(st.permutations(rhs_kinds), label="rhs layout")

    def positions(kind, n):
        return (tuple(lhs_kinds.index((kind, i)) for i in range(n)),
                tuple(rhs_kinds.index((kind, i)) for i in range(n)))

    numbers = (positions("contract", counts["contract"]), positions("batch", counts["batch"]))
    rng = rng_of(data)
    lhs = uniform(rng, tuple(sizes[k][i] for k, i in lhs_kinds), ANY)
    rhs = uniform(rng, tuple(sizes[k][i] for k, i in rhs_kinds), ANY)
    return Example([lhs, rhs], {"dimension_numbers": numbers}, diff=(0, 1))


def draw_einsum(data):
    letters = "ijkl"
    sizes = {c: data.draw(st.integers(1, 3)) for c in letters}
    terms = []
    for _ in range(data.draw(st.integers(1, 3), label="operands")):
        term = data.draw(st.permutations(letters))[:data.draw(st.integers(0, 3))]
        terms.append("".join(term))
    used = sorted(set("".join(terms)))
    output = "".join(data.draw(st.permutations(used))[:data.draw(st.integers(0, len(used)))])
    rng = rng_of(data)
    operands = [uniform(rng, tuple(sizes[c] for c in t), ANY) for t in terms]
    return Example(operands, {"subscripts": ",".join(terms) + "->" + output},
                   diff=tuple(range(len(terms))))


def draw_argsort(data):
    example = draw_sort(data)
    return Example(example.operands, dict(example.params, index_dtype="int64"))


def draw_sort(data):
    shape = data.draw(NONSCALAR, label="shape")
    params = {"dimension": data.draw(st.integers(0, len(shape) - 1))}
    return Example([uniform(rng_of(data), shape, ANY)], params)  # ties have probability 0


def draw_polygamma(data):
    """polygamma(m, x): m a non-negative integer (no derivative), x > 0."""
    shape = data.draw(SHAPES, label="shape")
    m = np.float64(data.draw(st.integers(0, 4), label="m"))
    return Example([m, uniform(rng_of(data), shape, (0.5, 4.0))], diff=(1,))


SPECS = {
    **{name: unary(domain) for name, domain in UNARY.items()},
    **{name: binary(dx, dy) for name, (dx, dy) in BINARY.items()},
    "select": draw_select, "clamp": draw_clamp, "convert": draw_convert,
    "reduce_sum": reduction(ANY), "reduce_max": reduction(ANY), "reduce_min": reduction(ANY),
    "reduce_prod": reduction((0.5, 2.0, "away")), "cumsum": cumulative(ANY),
    "cumprod": cumulative(ANY), "cummax": cumulative(ANY),
    "cummin": cumulative(ANY),
    "argmax": reduction(ANY, "axis"), "argmin": reduction(ANY, "axis"), "argsort": draw_argsort,
    "broadcast_in_dim": draw_broadcast_in_dim, "reshape": draw_reshape,
    "transpose": draw_transpose, "rev": draw_rev, "slice": draw_slice, "pad": draw_pad,
    "concatenate": draw_concatenate, "full": draw_full,
    "take": draw_take, "take_along_axis": draw_take_along_axis, "scatter": draw_scatter,
    "dynamic_slice": draw_dynamic_slice, "dynamic_update_slice": draw_dynamic_update_slice,
    "take_along_axis_transpose": draw_take_along_axis_transpose,
    "dot_general": draw_dot_general, "einsum": draw_einsum, "sort": draw_sort,
    "polygamma": draw_polygamma,
}


# ---------------------------------------------------------------- the check
def vjp_of(name, example, u):
    """astjax's cotangents of the differentiated operands, for output cotangent u."""
    if example.literal is None:
        loss = ad_cases.weighted(name, example.params)
        operands, argnums = example.operands, tuple(1 + i for i in example.diff)
    else:
        position, constant = example.literal
        loss = ad_cases.weighted_literal(name, example.params, constant, position)
        operands, argnums = [example.operands[1 - position]], (1,)
    return astjax.grad(loss, argnums=argnums)(u, *operands)


def fd_along(name, example, u, v):
    """Central differences of sum(p(*x) * u) along v (operand position -> direction)."""
    impl = PRIMITIVES[name].impl

    def weighted(step):
        moved = [x + step * v[i] if i in v else x for i, x in enumerate(example.operands)]
        return np.sum(np.asarray(impl(*moved, **example.params)) * u)

    return (weighted(EPS) - weighted(-EPS)) / (2 * EPS)


def check_rule(name, example, seed=0):
    impl = PRIMITIVES[name].impl
    rng = np.random.default_rng(seed)
    out = np.asarray(impl(*example.operands, **example.params))
    u = rng.standard_normal(out.shape)
    bars = vjp_of(name, example, u)
    assert len(bars) == len(example.diff)
    for i, bar in zip(example.diff, bars):
        x = np.asarray(example.operands[i])
        assert np.shape(bar) == x.shape, f"cotangent of operand {i} has the wrong shape"
        assert np.asarray(bar).dtype == x.dtype, f"cotangent of operand {i} has the wrong dtype"
    v = {i: rng.standard_normal(np.shape(example.operands[i])) for i in example.diff}
    lhs = sum(np.sum(bar * v[i]) for i, bar in zip(example.diff, bars))
    rhs = fd_along(name, example, u, v)
    if name in ZERO_DERIVATIVE:
        assert all(np.all(np.asarray(b) == 0) for b in bars)
    # Central differences: truncation ~eps^2 * f''' (~1e-12 on these domains), rounding
    # ~1e-16 * sum|u * out| / eps; 1e-6 relative to that scale is far above both and far
    # below any real rule error (which is O(1) relative).
    scale = 1.0 + np.sum(np.abs(u * out)) + abs(lhs)
    assert abs(lhs - rhs) <= 1e-6 * scale, f"{name}: <vjp(u), v> = {lhs}, FD gives {rhs}"


@pytest.mark.parametrize("name", sorted(SPECS))
@RULES
@given(data=st.data())
def test_rule_matches_finite_differences(name, data):
    check_rule(name, SPECS[name](data))


def check_jvp_rule(name, example, seed=0):
    """The forward rule against the same central differences: the tangent of
    sum(p(*x) * u) in a random direction v of the differentiated operands."""
    impl = PRIMITIVES[name].impl
    rng = np.random.default_rng(seed)
    out = np.asarray(impl(*example.operands, **example.params))
    u = rng.standard_normal(out.shape)
    v = {i: rng.standard_normal(np.shape(example.operands[i])) for i in example.diff}
    tangents = [np.zeros_like(u)] + [v[i] if i in v else np.zeros_like(x)
                                     for i, x in enumerate(example.operands)]
    loss = ad_cases.weighted(name, example.params)
    _, lhs = astjax.jvp(loss, (u, *example.operands), tuple(tangents))
    rhs = fd_along(name, example, u, v)
    scale = 1.0 + np.sum(np.abs(u * out)) + abs(float(lhs))
    assert abs(float(lhs) - rhs) <= 1e-6 * scale, f"{name}: <u, jvp(v)> = {lhs}, FD gives {rhs}"


@pytest.mark.parametrize("name", sorted(SPECS))
@RULES
@given(data=st.data())
def test_jvp_rule_matches_finite_differences(name, data):
    example = SPECS[name](data)
    if example.literal is not None:
        return
    check_jvp_rule(name, example)


def test_every_rule_is_checked_somewhere():
    with_rule = {name for name in PRIMITIVES if name in VJP}
    checked = set(SPECS) | set(NOT_HERE) | set(NO_FLOAT_OPERAND)
    assert with_rule - checked == set(), "rules without a test: add a SPECS entry"
    assert checked - with_rule == set(), "tested primitives that lost their rule"


@pytest.mark.parametrize("name", sorted(NO_FLOAT_OPERAND))
def test_rule_without_float_operand_answers_none(name):
    operands, params = NO_FLOAT_OPERAND[name]
    out = PRIMITIVES[name].impl(*operands, **params)
    got = VJP[name](np.ones(np.shape(out)), *operands, out=out, **params)
    assert list(got) == [None] * len(operands)


def test_reduce_prod_rules_at_zeros():
    """The derivative of a product is the product of the others, finite where x has zeros
    (out / x would be nan there); forward and reverse against that, built by hand."""
    x = np.array([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 1.5, 2.0], [1.0, 2.0, 3.0, 4.0]])
    for axes in ((1,), (0,), (0, 1)):
        others = np.empty_like(x)
        for idx in np.ndindex(x.shape):
            group = [j for j in np.ndindex(x.shape)
                     if all(j[a] == idx[a] for a in range(x.ndim) if a not in axes)]
            others[idx] = np.prod([x[j] for j in group if j != idx])
        example = Example([x], {"axes": axes})
        u = np.ones(np.shape(PRIMITIVES["reduce_prod"].impl(x, axes=axes)))
        np.testing.assert_allclose(vjp_of("reduce_prod", example, u)[0], others, rtol=1e-15)
        loss = ad_cases.weighted("reduce_prod", example.params)
        _, tangent = astjax.jvp(loss, (u, x), (np.zeros_like(u), np.ones_like(x)))
        np.testing.assert_allclose(tangent, others.sum(), rtol=1e-15)


def test_missing_rule_is_named(monkeypatch):
    monkeypatch.delitem(VJP._rules, "cumprod")
    with pytest.raises(TransformError, match="lax.cumprod has no reverse-mode derivative rule"):
        check_rule("cumprod", Example([np.linspace(0.5, 2.0, 4)], {"axis": 0}))


# ---------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", sorted(set(SPECS) - {"convert", "full"}))
@settings(max_examples=2, deadline=None)
@given(data=st.data())
def test_rule_keeps_float32(name, data):
    """In float32 the cotangents stay float32 and agree with the float64 ones."""
    example = SPECS[name](data)
    single = Example([x.astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float64
                      else x for x in example.operands], example.params, example.diff,
                     example.literal)
    out = np.asarray(PRIMITIVES[name].impl(*example.operands, **example.params))
    u = np.random.default_rng(1).standard_normal(out.shape)
    wide = vjp_of(name, example, u)
    narrow = vjp_of(name, single, u.astype(np.float32))
    for a, b in zip(wide, narrow):
        assert np.asarray(b).dtype == np.float32
        # float32 rounding (~1e-7) amplified by at most a few operations per element
        np.testing.assert_allclose(b, a, rtol=2e-4, atol=2e-4 * (1 + np.max(np.abs(a))))


def test_convert_cotangent_takes_the_operand_dtype():
    x, u = np.linspace(-1, 1, 5, dtype=np.float32), np.arange(5.0)
    (bar,) = vjp_of("convert", Example([x], {"dtype": "float64"}), u)
    assert bar.dtype == np.float32
    np.testing.assert_array_equal(bar, u.astype(np.float32))


# ---------------------------------------------------------------- parameters the rules get wrong
# Fixed examples (no hypothesis): an expected failure must not cost a shrinking run.
RNG = np.random.default_rng(7)


def test_pad_with_negative_padding():
    operands = [RNG.standard_normal((3, 4)), np.array(0.5)]
    check_rule("pad", Example(operands, {"config": ((-1, 2, 0), (0, -1, 1))}, diff=(0, 1)))


def test_take_along_axis_1():
    operands = [RNG.standard_normal((3, 4)), np.array([0, 2])]
    check_rule("take", Example(operands, {"axis": 1}))


def test_scatter_set_with_repeated_indices():
    operands = [RNG.standard_normal(3), np.array([0, 2, 0]), RNG.standard_normal(3)]
    check_rule("scatter", Example(operands, {"axis": 0, "mode": "set"}, diff=(0, 2)))


def test_scatter_along_axis_1():
    operands = [RNG.standard_normal((3, 4)), np.array([0, 2]), RNG.standard_normal((2, 3))]
    check_rule("scatter", Example(operands, {"axis": 1, "mode": "add"}, diff=(0, 2)))


def test_scatter_drops_out_of_range_updates():
    operands = [np.arange(3.0), np.array([0, 4]), np.array([1.0, 2.0])]
    check_rule("scatter", Example(operands, {"axis": 0, "mode": "set"}, diff=(0, 2)))


@pytest.mark.parametrize("mode", ["mul", "min", "max"])
def test_combining_scatters_with_repeats_and_dropped_updates(mode):
    """Repeated targets combine, index 5 is out of range (dropped), -1 wraps: both operands."""
    operands = [RNG.standard_normal(4), np.array([1, 3, 1, 5, -1]), RNG.standard_normal(5)]
    check_rule("scatter", Example(operands, {"axis": 0, "mode": mode}, diff=(0, 2)))


def test_scatter_mul_derivative_at_a_zero_factor_is_finite():
    """d(x * u1 * u2)/du1 = x * u2 even where u1 == 0 (no division by the zero factor)."""
    operands = [np.array([2.0, 3.0]), np.array([0, 0, 1]), np.array([0.0, 4.0, 5.0])]
    check_rule("scatter", Example(operands, {"axis": 0, "mode": "mul"}, diff=(0, 2)))
    bars = vjp_of("scatter", Example(operands, {"axis": 0, "mode": "mul"}, diff=(2,)),
                  np.ones(2))
    np.testing.assert_allclose(bars[0], [2.0 * 4.0, 0.0, 3.0])


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 0.0, 1.5], [0.0, 0.0, 1.0], [1.0, -2.0, 0.0]])
def test_cumprod_derivatives_at_exact_zeros(x, reverse):
    """Finite and right where factors are zero (no division by x), both modes."""
    example = Example([np.array(x)], {"axis": 0, "reverse": reverse})
    check_rule("cumprod", example)
    check_jvp_rule("cumprod", example)
