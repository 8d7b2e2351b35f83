"""Primitives that only autodiff introduces: stop_gradient, a while loop that keeps a tape of
its carries for the reverse sweep, and the transpose of take_along_axis."""
import numpy as np

from .avals import AVal
from .primitives import define
from .prims_control import as_tuple

define("stop_gradient", lambda x: np.asarray(x), lambda a: a, kind="elementwise")


def while_taped_impl(cond_fn, body_fn, *carry):
    """The final carry, then per carry value the stack of its values at each iteration start."""
    tape = []
    while bool(cond_fn(*carry)):
        tape.append(carry)
        carry = as_tuple(body_fn(*carry))
    stacks = [np.stack([np.asarray(c[i]) for c in tape]) if tape
              else np.empty((0,) + np.shape(v), np.asarray(v).dtype) for i, v in enumerate(carry)]
    return tuple(carry) + tuple(stacks)


def _while_taped_abstract(*avals, cond, body):
    # A tape's length is the trip count, known only when the loop runs: -1 marks it.
    return list(avals) + [AVal((-1,) + a.shape, a.dtype) for a in avals]


define("while_loop_taped", while_taped_impl, _while_taped_abstract, multiple_results=True,
       kind="control")


def _take_along_transpose(ct, index, *, shape, axis):
    """The cotangent of x in take_along_axis(x, index, axis): ct added at the taken places."""
    out = np.zeros(shape, np.asarray(ct).dtype)
    index = np.asarray(index)
    index = np.clip(np.where(index < 0, index + shape[axis], index), 0, shape[axis] - 1)
    grids = list(np.indices(np.broadcast_shapes(index.shape, np.shape(ct)), sparse=True))
    grids[axis] = index
    np.add.at(out, tuple(grids), ct)
    return out


define("take_along_axis_transpose", _take_along_transpose,
       lambda ct, i, *, shape, axis: AVal(tuple(shape), ct.dtype), kind="indexing")


# ---------------------------------------------------------------- user-defined derivatives
def _call_impl(*args, fun, **_):
    return fun(*args)


def _call_abstract(*avals, fun, **_):
    return fun.out_avals


# custom_jvp_call(*args, fun=F, jvp=J): F(*args), differentiated with the user's rule J
define("custom_jvp_call", _call_impl, _call_abstract, multiple_results=True, kind="control")
# custom_vjp_call(*args, fun=F, fwd=Fw, bwd=Bw, num_res=k)
define("custom_vjp_call", _call_impl, _call_abstract, multiple_results=True, kind="control")
# checkpoint(*args, fun=F): F's intermediates are recomputed in the reverse sweep, not stored
define("checkpoint", _call_impl, _call_abstract, multiple_results=True, kind="control")


# ---------------------------------------------------------------- effects
def _debug_print(*values, fmt):
    print(fmt.format(*[np.asarray(v) for v in values]))
    return ()


# debug_print(*values, fmt=...): prints when the compiled code runs; never removed as dead code
define("debug_print", _debug_print, lambda *avals, fmt: [], multiple_results=True, kind="effect")
