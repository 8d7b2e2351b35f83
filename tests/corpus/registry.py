"""The corpus record (`Case`) and the hypothesis strategies corpus modules build arguments with.

Every strategy here is parameterised by a float dtype, so a test can ask for one dtype
(`case.args(np.float32)`) or let hypothesis pick among the case's dtypes (`case.args()`).
Values are finite and bounded (default [-3, 3]) so that exp/log/division stay well conditioned.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOATS = (np.float64, np.float32)


@dataclass(frozen=True)
class Case:
    """One corpus function and how to call it.

    name            unique id (used as the pytest id)
    fun             the function, written as a JAX user writes it
    make_args       dtype -> hypothesis strategy of a *tuple* of positional arguments
    dtypes          float dtypes the case is tested with
    static_argnums  positions of static arguments (Python ints/tuples/floats in the tuple)
    differentiable  smooth in its float array inputs (no kinks, no argmax, bounded loops only
                    where the trip count is locally constant): for grad / finite-difference tests
    batchable       can be vmapped over the leading axis of its dynamic arguments
    reference       eager oracle when `fun` itself cannot run on plain NumPy arrays (it uses
                    `x.at[...]`, which NumPy arrays lack); defaults to `fun`
    jax             the same source runs under jax.jit with jnp/lax/nn bound to JAX's modules
                    (no Python control flow on array values): used as a second oracle
    tags            free-form labels ("if", "while", "pytree", "numpy", ...) for selecting cases
    """
    name: str
    fun: Callable
    make_args: Callable[[type], st.SearchStrategy]
    dtypes: tuple = FLOATS
    static_argnums: tuple = ()
    differentiable: bool = True
    batchable: bool = True
    reference: Optional[Callable] = None
    jax: bool = False
    tags: tuple = field(default=())

    def args(self, dtype=None) -> st.SearchStrategy:
        """Strategy of argument tuples: of `dtype`, or of any of the case's dtypes."""
        if dtype is not None:
            return self.make_args(np.dtype(dtype).type)
        return st.sampled_from(self.dtypes).flatmap(self.make_args)

    def expected(self, *args):
        """The eager result: the reference (or the function itself) run on NumPy values."""
        return (self.reference or self.fun)(*args)

    @property
    def dynamic_argnums(self) -> tuple:
        n = self.fun.__code__.co_argcount
        return tuple(i for i in range(n) if i not in self.static_argnums)

    def __repr__(self) -> str:
        return f"Case({self.name})"


# ---------------------------------------------------------------- strategies
def elements(dtype, lo=-3.0, hi=3.0) -> st.SearchStrategy:
    width = 32 if np.dtype(dtype) == np.float32 else 64
    return st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False)


def shapes(min_dims=1, max_dims=2, min_side=1, max_side=4) -> st.SearchStrategy:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def array(dtype, shape, lo=-3.0, hi=3.0) -> st.SearchStrategy:
    """Arrays of `dtype`; `shape` is a tuple or a strategy of tuples."""
    return hnp.arrays(dtype, shape, elements=elements(dtype, lo, hi))


def positive(dtype, shape, lo=0.25, hi=4.0) -> st.SearchStrategy:
    return array(dtype, shape, lo, hi)


def scalar(dtype, lo=-3.0, hi=3.0) -> st.SearchStrategy:
    """A 0-d array (not a Python float: it keeps its dtype)."""
    return array(dtype, (), lo, hi)


def side(lo=1, hi=4) -> st.SearchStrategy:
    return st.integers(lo, hi)


def one_array(shape=None, lo=-3.0, hi=3.0):
    """make_args for a function of one array (of any 1-2-d shape unless given)."""
    def make(dtype):
        return st.tuples(array(dtype, shape if shape is not None else shapes(), lo, hi))
    return make


def same_shape(n, shape=None, lo=-3.0, hi=3.0):
    """make_args for n arrays of one (drawn) shape."""
    def make(dtype):
        return (st.just(shape) if shape is not None else shapes()).flatmap(
            lambda s: st.tuples(*[array(dtype, s, lo, hi) for _ in range(n)]))
    return make


def composite(fn):
    """make_args from `fn(draw, dtype) -> tuple`."""
    build = st.composite(fn)
    return lambda dtype: build(dtype)
