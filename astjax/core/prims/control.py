"""Control-flow primitives: cond, switch, while_loop (and the taped while of reverse mode), scan.

In an equation their bodies are nested `Func`s held in params; printed, they are nested `def`s
passed by name, and the implementation here (used by eager `astjax.lax` and by the NumPy backend
running printed core form) takes those Python callables positionally:

    y = lax.cond(p, then_3, else_3, y, limit)        # operands follow the branches
    y = lax.switch(i, (b0, b1, b2), y)
    x, i = lax.while_loop(cond_5, body_5, x, i)
    c, ys = lax.scan(body_7, w, c, xs, num_consts=1, num_carry=1, length=10, reverse=False)
"""
import contextlib
import math
import threading
import time

import numpy as np

from ...errors import ControlFlowError
from ..avals import AVal
from ..primitives import define


def as_tuple(result) -> tuple:
    """Bodies return one value bare and several as a tuple."""
    return result if isinstance(result, tuple) else (result,)


def _unwrap(values: tuple):
    return values[0] if len(values) == 1 else values


# ---------------------------------------------------------------- cond / switch
def cond_impl(pred, true_fn, false_fn, *operands):
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


def switch_impl(index, branches, *operands):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return branches[i](*operands)


def _cond_abstract(pred, *avals, branches):
    if pred.shape != ():
        raise ControlFlowError(f"the condition has shape {pred.shape}; it must be a scalar",
                               hint="reduce it with jnp.any(...) / jnp.all(...), "
                                    "or select elementwise with jnp.where")
    return branches[0].out_avals


define("cond", cond_impl, _cond_abstract, multiple_results=True, kind="control")
define("switch", switch_impl, _cond_abstract, multiple_results=True, kind="control")


# ---------------------------------------------------------------- while_loop
class OutOfTime(Exception):
    """A while loop ran past the limit its thread set (see `deadline`)."""


_LOCAL = threading.local()


@contextlib.contextmanager
def deadline(seconds: float = math.inf, until: threading.Event = None):
    """While loops run in this thread inside the block raise OutOfTime, at their next trip,
    once `seconds` have passed or the event `until` is set: a caller with another way to the
    answer (XLA, compiling meanwhile) gives up on an interpreted loop whose trip count
    nothing knew in advance."""
    outer = getattr(_LOCAL, "limit", None)
    _LOCAL.limit = (time.perf_counter() + seconds, until)
    try:
        yield
    finally:
        _LOCAL.limit = outer


def _keep_time() -> None:
    limit = getattr(_LOCAL, "limit", None)
    if limit is not None:
        end, until = limit
        if time.perf_counter() > end or (until is not None and until.is_set()):
            raise OutOfTime


def while_impl(cond_fn, body_fn, *carry):
    while bool(cond_fn(*carry)):
        _keep_time()
        carry = as_tuple(body_fn(*carry))
    return _unwrap(carry)


define("while_loop", while_impl, lambda *avals, cond, body: list(avals),
       multiple_results=True, kind="control")


# ---------------------------------------------------------------- scan
def scan_impl(body_fn, *operands, num_consts, num_carry, length, reverse=False, num_tape=0):
    """num_tape: how many of the last ys are residuals stacked for a reverse sweep (ys like
    any other to everything but reverse mode, which leaves their cotangents out when none).
    length -1: the length of xs, known only when the scan runs (the reverse of a while)."""
    consts = operands[:num_consts]
    carry = operands[num_consts:num_consts + num_carry]
    xs = operands[num_consts + num_carry:]
    if length < 0:
        length = len(xs[0])
    steps = range(length - 1, -1, -1) if reverse else range(length)
    ys = None
    for t in steps:
        out = as_tuple(body_fn(*consts, *carry, *[x[t] for x in xs]))
        carry, y = out[:num_carry], out[num_carry:]
        if ys is None:
            ys = [np.empty((length,) + np.shape(v), np.asarray(v).dtype) for v in y]
        for stack, v in zip(ys, y):
            stack[t] = v
    if ys is None:  # no step ran: shape the empty ys by one step on stand-in zeros
        probe = as_tuple(body_fn(*consts, *carry, *[np.zeros(np.shape(x)[1:], np.asarray(x).dtype)
                                                    for x in xs]))
        ys = [np.empty((0,) + np.shape(v), np.asarray(v).dtype) for v in probe[num_carry:]]
    return _unwrap(tuple(carry) + tuple(ys))


def stacked(aval: AVal, length) -> AVal:
    """The abstract value of `length` steps' `aval`s stacked, as a scan's ys are."""
    return AVal((length,) + tuple(aval.shape), aval.dtype)


def _scan_abstract(*avals, body, num_consts, num_carry, length, reverse=False, num_tape=0):
    outs = body.out_avals
    ys = [stacked(a, length) for a in outs[num_carry:]]
    return list(avals[num_consts:num_consts + num_carry]) + ys


define("scan", scan_impl, _scan_abstract, multiple_results=True, kind="control")


# ---------------------------------------------------------------- while_loop_taped
# Only reverse mode introduces it: a while loop that keeps a tape of its carries for the sweep.
def while_taped_impl(cond_fn, body_fn, *carry):
    """The final carry, then per carry value the stack of its values at each iteration start."""
    tape = []
    while bool(cond_fn(*carry)):
        _keep_time()
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
