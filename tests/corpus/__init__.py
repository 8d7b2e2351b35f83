"""The shared test corpus: small numeric functions written the way JAX users write them.

Every transformation (jit, grad, vmap, the numba and xla backends) is tested over this one
registry, each against an eager NumPy oracle. A case is a `Case` record (see `registry.py`):

    from corpus import CASES, by_name           # tests/ is on sys.path (tests/conftest.py)

    @pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
    @given(data=st.data())
    def test_something(case, data):
        args = data.draw(case.args())             # a tuple; float64 or float32, small shapes
        expected = case.expected(*args)           # eager NumPy (case.reference or case.fun)
        got = astjax.jit(case.fun, static_argnums=case.static_argnums)(*args)

Select subsets by flag (`case.differentiable`, `case.batchable`, `case.jax`) or by tag
(`cases_tagged("while")`). Themes, one module each:

    elementwise  chains of math, broadcasting, globals, nn activations, plain-NumPy functions
    reductions   axis/keepdims reductions, softmax/logsumexp, moments, argmax, cumsum
    linalg       matmul, einsum, dot/outer/trace, norms, a static power iteration
    nn_like      dense/MLP layers with parameter pytrees, losses, attention, an SGD step
    control      if/elif/while/for on array values, static control flow, helpers, closures,
                 lax.cond/while_loop/fori_loop/scan/switch with lambdas
    pytrees      dicts/tuples/namedtuples in and out, indexing, slicing, .at[] and x[i] = v
"""
from . import control, elementwise, linalg, nn_like, pytrees, reductions
from .registry import FLOATS, Case  # noqa: F401

CASES = [*elementwise.CASES, *reductions.CASES, *linalg.CASES, *nn_like.CASES,
         *control.CASES, *pytrees.CASES]

_BY_NAME = {c.name: c for c in CASES}
assert len(_BY_NAME) == len(CASES), "corpus case names must be unique"


def by_name(name: str) -> Case:
    return _BY_NAME[name]


def cases_tagged(*tags) -> list:
    """Cases carrying any of these tags."""
    return [c for c in CASES if set(tags) & set(c.tags)]
