"""Functions for the reverse-mode tests (test_grad.py, test_vjp_rules.py).

astjax compiles functions from their source, so the functions a test differentiates live here,
in a real file. They are written as a JAX user writes them (`jnp`, `lax` are astjax's modules);
test_grad.py rebinds `jnp`/`lax` to JAX's modules to run the same source under `jax.grad`.
"""
import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.core.bind import bind


# ---------------------------------------------------------------- one primitive at a time
def weighted(name, params):
    """loss(u, *operands) = sum(prim(*operands) * u): its gradient is the primitive's VJP at u.

    `name` and `params` are read from the closure, so they are static (a tuple passed as an
    argument would become an array of ints)."""
    def loss(u, *operands):
        return jnp.sum(bind(name, *operands, **params) * u)
    return loss


def weighted_literal(name, params, constant, position):
    """As `weighted` for a binary primitive one of whose operands is a Python float literal."""
    if position == 0:
        def loss(u, y):
            return jnp.sum(bind(name, constant, y, **params) * u)
    else:
        def loss(u, x):
            return jnp.sum(bind(name, x, constant, **params) * u)
    return loss


def weighted_outputs(fun, static, float_leaves):
    """sum(sin(leaf)) over the float output leaves of a corpus function, for grad against FD.

    `static`: keyword arguments bound to the function's static parameters; `float_leaves`:
    indices (into the flattened output) of the leaves that are float arrays."""
    from astjax.tree_util import tree_leaves

    def loss(*args):
        leaves = tree_leaves(fun(*args, **static))
        total = 0.0
        for i in float_leaves:
            total = total + jnp.sum(jnp.sin(leaves[i]))
        return total
    return loss


# ---------------------------------------------------------------- models and losses
def mlp_loss(params, x, labels):
    """Softmax cross-entropy of a two-layer MLP; `labels` one-hot."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    m = jnp.max(logits, axis=1, keepdims=True)
    lse = m + jnp.log(jnp.sum(jnp.exp(logits - m), axis=1, keepdims=True))
    return -jnp.mean(jnp.sum(labels * (logits - lse), axis=1))


def logsumexp(x):
    m = jnp.max(x)
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))


def loss_with_aux(w, x):
    pred = x @ w
    return jnp.mean(pred * pred), {"pred": pred, "norm": jnp.sum(w * w)}


def three_args(a, b, c):
    return jnp.sum(a * jnp.sin(b)) + jnp.sum(c) * jnp.sum(a * a)


def pytree_params(params, x):
    """Params as a dict holding a tuple: grads come back in the same structure."""
    w, b = params["layer"]
    return jnp.sum(jnp.tanh(x @ w + b)) * params["scale"]


def with_scalar(x, s):
    return jnp.sum(jnp.tanh(x * s)) + s * s


# ---------------------------------------------------------------- Python control flow
def if_on_value(x):
    if jnp.sum(x) > 0:
        y = jnp.sin(x) * 2.0
    else:
        y = x * x
    return jnp.sum(y)


def early_return(x):
    if jnp.max(x) > 1.0:
        return jnp.sum(jnp.exp(x))
    y = x * 3.0
    return jnp.sum(y * y)


def while_growth(x):
    """Trip count depends on x: grow until the squared norm passes 50."""
    y = x
    while jnp.sum(y * y) < 50.0:
        y = y * 1.5 + 0.1
    return jnp.sum(jnp.sin(y))


def while_growth_trips(x):
    """How many times while_growth's body runs (plain NumPy, for choosing test inputs)."""
    import numpy as np
    y, n, margins = np.asarray(x), 0, []
    while True:
        margins.append(abs(float(np.sum(y * y)) - 50.0))
        if not np.sum(y * y) < 50.0:
            return n, min(margins)
        y, n = y * 1.5 + 0.1, n + 1


def while_break(x):
    """A counted loop left early by `break` once the maximum passes 2."""
    y = x
    i = 0
    while i < 8:
        y = jnp.sin(y) + y * 1.25
        if jnp.max(y) > 2.0:
            break
        i = i + 1
    return jnp.sum(y * y)


def for_rows(xs, w):
    h = jnp.zeros(w.shape[0])
    for row in xs:
        h = jnp.tanh(w @ h + row)
    return jnp.sum(h)


def for_static(x):
    y = x
    for i in range(3):
        y = jnp.sin(y) + x * i
    return jnp.sum(y)


# ---------------------------------------------------------------- lax control flow
def fori(x):
    return jnp.sum(lax.fori_loop(0, 4, lambda i, c: jnp.cos(c) * x + i, x))


def rnn(params, xs):
    """BPTT through lax.scan with a dict carry."""
    def step(carry, x):
        h = jnp.tanh(params["wh"] @ carry["h"] + params["wx"] @ x + params["b"])
        return {"h": h, "energy": carry["energy"] + jnp.sum(h * h)}, h

    init = {"h": jnp.zeros(params["b"].shape), "energy": jnp.zeros(())}
    final, hs = lax.scan(step, init, xs)
    return final["energy"] + jnp.sum(hs[-1] * params["b"])


def lax_cond(x, y):
    return lax.cond(jnp.sum(x) > 0, lambda a, b: jnp.sum(a * b),
                    lambda a, b: jnp.sum(jnp.sin(a) - b), x, y)


def lax_switch(x, i):
    return lax.switch(i, [lambda a: jnp.sum(jnp.sin(a)), lambda a: jnp.sum(a * a),
                          lambda a: jnp.max(jnp.exp(a))], x)


# ---------------------------------------------------------------- indexing and contractions
def where_fn(x):
    return jnp.sum(jnp.where(x > 0, x * x, jnp.sin(x)))


def indexing(x, v):
    a = jnp.sum(x[1:] * x[:-1])
    b = jnp.sum(jnp.tanh(x[:, None] * v[None, :]))
    c = x.at[2].add(v[0] * 3.0)
    return a + b + jnp.sum(c * c)


def take_along(x, idx):
    return jnp.sum(jnp.take_along_axis(x, idx, axis=1) ** 2)


def contractions(a, b):
    return jnp.sum(jnp.tanh(a @ b)) + jnp.einsum("ij,jk->", a, b) + jnp.einsum("ij,ij->", a, a)


def einsum_implicit(a):
    """einsum with the output left implicit ("ij,ij" means "ij,ij->")."""
    return jnp.einsum("ij,ij", a, a)


# ---------------------------------------------------------------- errors and known bugs
def vector_out(x):
    return x * 2.0


def uses_digamma(x):
    return jnp.sum(lax.digamma(x))


def with_stop_gradient(x):
    return jnp.sum(x * lax.stop_gradient(x))


def at_set_repeated(x, v):
    return jnp.sum(x.at[jnp.array([0, 2, 0])].set(v) * jnp.array([1.0, 2.0, 3.0]))


def checkpointed(x):
    return astjax.checkpoint(logsumexp)(x * 2.0)


def take_columns(x, idx):
    return jnp.sum(jnp.take_along_axis(x, idx, axis=1)) + jnp.sum(x[:, jnp.array([0, 2])] ** 2)


def divide_by_literal(x):
    return jnp.sum(x / 2.0)


def power_of_literal(x):
    return jnp.sum(x ** 3.0)


def atan2_of_literal(x):
    return jnp.sum(jnp.arctan2(1.5, x))
