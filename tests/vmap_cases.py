"""Functions of one example, for the vmap tests: each is batched by astjax.vmap and compared with
a Python loop of eager calls (the oracle). `CASES` maps a name to (function, the per-example
argument strategy, the in_axes choices to try)."""
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import astjax.numpy as jnp
from astjax import lax, nn


def floats(shape, lo=-3.0, hi=3.0):
    return hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False))


def ints(shape, lo, hi):
    return hnp.arrays(np.int64, shape, elements=st.integers(lo, hi))


# ---------------------------------------------------------------- elementwise and reductions
def elementwise(x):
    return jnp.sin(x) * 2.0 + x ** 2 - jnp.exp(-x)


def broadcast_mix(x, m):
    return jnp.tanh(x) + m * x  # x: (3,), m: (2, 3): ranks differ per example


def reductions(x):
    return jnp.sum(x, axis=0) + jnp.max(x, axis=1).mean() + jnp.argmax(x[:, 0]) \
        + jnp.cumsum(x, axis=1)[:, -1].sum()


def softmax(x):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


# ---------------------------------------------------------------- contraction and shapes
def matvec(w, x):
    return jnp.tanh(x @ w) + jnp.einsum("ij,j->i", w.T, x)[0] + jnp.dot(w, w)[0]


def shapes(x, y):
    z = jnp.concatenate([x.reshape(-1), y[::-1]], axis=0)
    p = jnp.pad(x, ((1, 0), (0, 2)))
    return z.sum() + p.T[1:, :2].sum() + jnp.sort(y)[0] + jnp.argsort(y)[-1] \
        + jnp.arange(3.0) * jnp.full_like(y, 2.0)[0]


# ---------------------------------------------------------------- indexing and updates
def gather(x, i):
    return x[i] * 2.0 + jnp.take_along_axis(x, jnp.abs(i) % 4, axis=0)


def at_updates(x, i, v):
    y = x.at[i].set(v)
    return y.at[1].add(v * 2.0) + x.at[i].add(1.0)


def dynamic(x, s):
    piece = lax.dynamic_slice(x, (s,), (2,))
    return lax.dynamic_update_slice(x, piece * 10.0, (s + 1,))


# ---------------------------------------------------------------- nn and pytrees
def mlp(params, x):
    h = nn.relu(x @ params["w1"] + params["b1"])
    return jnp.sum(softmax(h @ params["w2"]))


def mlp_params():
    return st.fixed_dictionaries({"w1": floats((3, 4), -1, 1), "b1": floats((4,), -1, 1),
                                  "w2": floats((4, 2), -1, 1)})


# ---------------------------------------------------------------- control flow
def python_if(x):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = -x + 1.0
    return y


def python_while(x):
    while jnp.max(jnp.abs(x)) > 0.5:
        x = x * 0.5
    return x


def lax_cond(x, p):
    return lax.cond(p[0] > 0, lambda v: jnp.sin(v), lambda v: v * v, x)


def newton_sqrt(a):
    def cond(state):
        x, i = state
        return jnp.logical_and(jnp.abs(x * x - a) > 1e-9 * a, i < 60)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, i = lax.while_loop(cond, body, (a + 1.0, 0))
    return x, i


def fori(x, n):
    return lax.fori_loop(0, 3, lambda i, c: c * 0.5 + x[i], x[0]) + n


def scan_rows(c0, xs):
    def step(c, x):
        c = jnp.tanh(c + x)
        return c, c.sum()
    return lax.scan(step, c0, xs)


def switch(x, k):
    return lax.switch(k, [lambda v: v + 1.0, lambda v: v * 3.0, jnp.cos], x)


# Functions whose eager form needs `.at` on NumPy arrays: their oracle is a loop of jit calls.
JIT_ORACLE = {"at_updates"}

F, P = floats, (lambda shape: floats(shape, 0.01, 50.0))
CASES = {
    "elementwise": (elementwise, (F((3,)),), [0, (1,)]),
    "broadcast_mix": (broadcast_mix, (F((3,)), F((2, 3))), [0, (0, None), (None, 0), (1, 2)]),
    "reductions": (reductions, (F((2, 3)),), [0, (1,), (2,)]),
    "softmax": (softmax, (F((2, 3)),), [0, (-1,)]),
    "matvec": (matvec, (F((3, 3)), F((3,))), [(None, 0), (0, 0), (0, None), (2, None)]),
    "shapes": (shapes, (F((2, 2)), F((3,))), [0, (None, 0), (0, None)]),
    "gather": (gather, (F((4,)), ints((3,), -4, 3)), [0, (None, 0), (0, None)]),
    "at_updates": (at_updates, (F((4,)), ints((), -5, 4), F(())),
                   [0, (None, 0, None), (0, None, 0), (None, None, 0)]),
    "dynamic": (dynamic, (F((5,)), ints((), -1, 5)), [0, (None, 0), (0, None)]),
    "mlp": (mlp, (mlp_params(), F((3,))), [(None, 0), 0]),
    "python_if": (python_if, (F((3,)),), [0]),
    "python_while": (python_while, (F((3,)),), [0, (1,)]),
    "lax_cond": (lax_cond, (F((3,)), F((1,))), [0, (0, None), (None, 0)]),
    "newton_sqrt": (newton_sqrt, (P(()),), [0]),
    "fori": (fori, (F((3,)), F(())), [0, (None, 0)]),
    "scan_rows": (scan_rows, (F((2,)), F((4, 2))), [0, (None, 0), (0, None), (0, 1)]),
    "switch": (switch, (F((2,)), ints((), -1, 3)), [0, (None, 0), (0, None)]),
}


# arrays held by captured pytrees, indexed with a batched index
Params = __import__("collections").namedtuple("Params", "w b")
PARAMS = Params(np.arange(5.0), np.ones(3))
TABLE = {"w": np.arange(5.0) ** 2, "rows": [np.eye(3)]}


def pick_from_pytrees(i):
    return PARAMS.w[i] * 2.0 + TABLE["w"][i] + TABLE["rows"][0][i % 3, 1]


def scaled_pick(t, i):
    return PARAMS.w[i] * t ** 2


def newton_root(a):
    x = a
    while jnp.abs(x * x - a) > 1e-10 * a:
        x = 0.5 * (x + a / x)
    return x


def grow_and_count(x, limit):
    """A counter that starts as a literal and a carry the trip count depends on."""
    n = 0.0
    y = x
    while y < limit:
        y = y * 1.5 + 0.1
        n = n + 1.0
    return y * n
