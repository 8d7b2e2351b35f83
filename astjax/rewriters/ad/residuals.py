"""What a scan's reverse sweep reads from its forward pass: residuals, saved once per step.

A scan's body is differentiated when its forward equation is taped (`split_scan_body`). The
body's VJP falls into three parts:

- the sweep: the equations that read the cotangents;
- the varying forward part: what each step computes from its carry and its slice of xs;
- the invariant part: what depends on the scan's constants alone, the same every step.

The forward scan runs the body as before and also stacks the varying values the sweep reads (the
residuals). The reverse scan then runs the sweep alone on each step's residuals, as JAX's scan
does, instead of running the body a second time. The invariant part is computed again by the
sweep (stacking a value that is the same every step would only cost memory), and the sweep reads
each step's slice of xs from xs itself. Where the residual stacks would pass a GiB and four times
a tape of the carries, the forward scan stacks the carries alone and the sweep runs each step's
body again from them (see RECOMPUTE_BYTES).
"""
from dataclasses import dataclass

import numpy as np

from astjax.core.dims import by_size
from astjax.core.closure import free_vars
from astjax.core.ir import Func, Var
from astjax.core.simplify import effectful, eliminate_dead_code

from .util import differentiable


@dataclass
class Sweep:
    """One step of a scan's reverse sweep: `func(consts..., x_k..., residuals_k..., seeds...)`
    -> the cotangents of the body's differentiable params, in their order."""
    func: Func
    num_residuals: int


# Residual stacks larger than this, and than RECOMPUTE_RATIO times the carries', are not
# kept: the sweep computes each step again from a tape of the carries instead (memory over
# time, where saving everything, as JAX does, would need several times the carries' tape).
RECOMPUTE_BYTES = 1 << 30
RECOMPUTE_RATIO = 4


def split_scan_body(body: Func, num_consts: int, num_carry: int, length, vjp_func) -> tuple:
    """(the body with each step's residuals as extra outputs, its Sweep). `vjp_func` is
    vjp.py's (passed in: it tapes the scans of the bodies it differentiates with this)."""
    vjp = vjp_func(body, [differentiable(p) for p in body.params], f"{body.name}_vjp")
    n_outs, n_params = len(body.outs), len(body.params)
    consts, xs = body.params[:num_consts], body.params[num_consts + num_carry:]
    carry_params = body.params[num_consts:num_consts + num_carry]
    seeds, bars = vjp.params[n_params:], vjp.outs[n_outs:]
    sweep, varying, invariant = _classify(vjp.eqns, seeds, body.params[num_consts:])
    in_sweep = {id(e) for e in sweep}
    defined_varying = {v.id for e in varying for v in e.outs}
    carries = {p.id for p in carry_params}
    residuals = [v for v in free_vars([], sweep, bars)
                 if v.id in defined_varying or v.id in carries]
    if _too_large(residuals, carry_params, length):
        residuals, sweep, invariant = list(carry_params), vjp.eqns, []
    else:
        body = Func(body.name, body.params, [e for e in vjp.eqns if id(e) not in in_sweep],
                    list(vjp.outs[:n_outs]), body.loc)
    forward = Func(body.name, body.params, body.eqns, list(body.outs) + residuals, body.loc)
    step = Func(f"{body.name}_sweep", list(consts) + list(xs) + residuals + list(seeds),
                invariant + sweep, bars, body.loc)
    return eliminate_dead_code(forward), Sweep(eliminate_dead_code(step), len(residuals))


def _too_large(residuals: list, carries: list, length) -> bool:
    """Decided by the sizes of this call (symbolic sizes by their witnesses, a choice either
    way of which is right for every size: `by_size`)."""
    if isinstance(length, (int, np.integer)) and length < 0:
        return False  # (the reverse of a while loop: its length is known only when it runs)
    per_step, per_carry = nbytes(residuals), nbytes(carries)
    return by_size(lambda: per_step * length > RECOMPUTE_BYTES
                   and per_step > RECOMPUTE_RATIO * per_carry)


def nbytes(values: list):
    """Bytes of one each of `values` (symbolic sizes stay symbolic)."""
    total = 0
    for v in values:
        count = 1
        for d in v.aval.shape:
            count = count * d
        total = total + count * np.dtype(v.aval.dtype).itemsize
    return total


def _classify(eqns: list, seeds: list, varying_params: list) -> tuple:
    """(sweep, varying, invariant) equations, each list in program order. An effect runs
    once, in the forward pass."""
    seeded = {s.id for s in seeds}
    varies = {p.id for p in varying_params}
    sweep, varying, invariant = [], [], []
    for eqn in eqns:
        reads = {a.id for a in eqn.ins if isinstance(a, Var)}  # (nested bodies are closed)
        if reads & seeded:
            sweep.append(eqn)
            seeded.update(v.id for v in eqn.outs)
        elif reads & varies or effectful(eqn):
            varying.append(eqn)
            varies.update(v.id for v in eqn.outs)
        else:
            invariant.append(eqn)
    return sweep, varying, invariant
