"""Batching rules for control flow: each body is batched by `batch_func` itself.

- cond/switch with an unbatched selector stay one cond/switch over batched branches; with a
  batched selector every branch runs on every lane and a `select` per output picks each lane's.
- while_loop: carries that depend on batched values become batched (a fixpoint over the body).
  With a batched predicate the loop runs while *any* lane runs; the body freezes finished lanes
  with a `select`, and the per-lane predicate is carried so it is computed once per iteration.
- scan: batched xs are stacked along axis 0 by scan, so their batch axis moves to axis 1 (and
  batched ys come back with theirs at 1, moved to 0).
- while_loop_taped (the forward loop of a gradient) batches like while_loop: lanes that stop
  at different times are frozen, so every lane's tape is as long as the longest; the reverse
  sweep skips the steps a lane did not run (their recorded carry fails the condition).
"""
from astjax.core.bind import bind
from astjax.core.build import build_func
from astjax.core.inline import inline
from astjax.core.ir import Func, Var

from .util import batched as to_batched
from .util import BATCH, lane_mask, moveaxis
from .vmap import batch_func, vmap_func


def _dims(flags) -> list:
    return [0 if b else None for b in flags]


# ---------------------------------------------------------------- cond / switch
def _branches_rule(prim):
    def batch_rule(args, dims, *, axis_size, branches):
        (selector, *ops), (s_dim, *op_dims) = args, dims
        in_b = [d is not None for d in op_dims]
        if s_dim is None:
            results = [batch_func(b, in_b, axis_size)[1] for b in branches]
            out_b = [any(col) for col in zip(*results)]
            funcs = tuple(batch_func(b, in_b, axis_size, force=out_b)[0] for b in branches)
            return bind(prim, selector, *ops, branches=funcs), _dims(out_b)
        per_branch = [inline(vmap_func(b, in_b, axis_size), ops) for b in branches]
        return _select_lanes(prim, selector, per_branch), [0] * len(per_branch[0])
    return batch_rule


def _select_lanes(prim, selector, per_branch) -> list:
    """Per output, each lane's value from the branch its selector picks."""
    if prim == "cond":
        return [bind("select", lane_mask(selector, t), t, f) for t, f in zip(*per_branch)]
    index = bind("clamp", 0, selector, len(per_branch) - 1)
    chosen = list(per_branch[0])
    for k, outs in enumerate(per_branch[1:], start=1):
        hit = bind("eq", index, k)
        chosen = [bind("select", lane_mask(hit, o), o, c) for o, c in zip(outs, chosen)]
    return chosen


BATCH.register("cond")(_branches_rule("cond"))
BATCH.register("switch")(_branches_rule("switch"))


# ---------------------------------------------------------------- while_loop
def _carry_fixpoint(body: Func, flags: list, axis_size: int, start: int = 0) -> list:
    """Which params must be batched: those batched on entry, and the carries (params from
    `start` on, returned first by the body) that the body makes batched."""
    flags = list(flags)
    while True:
        _, out_b = batch_func(body, flags, axis_size)
        carry = flags[start:start + len(out_b)]
        widened = [a or b for a, b in zip(carry, out_b)]
        if widened == carry:
            return flags
        flags[start:start + len(widened)] = widened


def _passthrough(body: Func) -> list:
    """Carries the body returns unchanged (the loop's constants)."""
    return [o is p for o, p in zip(body.outs, body.params)]


def _loop_parts(args, dims, axis_size, cond, body):
    flags = _carry_fixpoint(body, [d is not None for d in dims], axis_size)
    _, (pred_b,) = batch_func(cond, flags, axis_size)
    if pred_b:  # lanes stop at different times: everything they update is per lane
        flags = _carry_fixpoint(body, [f or not p for f, p in zip(flags, _passthrough(body))],
                                axis_size)
    body_b = batch_func(body, flags, axis_size, force=flags)[0]
    cond_b = batch_func(cond, flags, axis_size)[0]
    ops = [to_batched(x, d, axis_size) if f else x for x, d, f in zip(args, dims, flags)]
    return flags, pred_b, cond_b, body_b, ops


@BATCH.register("while_loop")
def _while(args, dims, *, axis_size, cond, body):
    flags, pred_b, cond_b, body_b, ops = _loop_parts(args, dims, axis_size, cond, body)
    if not pred_b:
        return bind("while_loop", *ops, cond=cond_b, body=body_b), _dims(flags)
    running = inline(cond_b, ops)[0]
    cond_any, body_masked = _masked_loop(cond_b, body_b, flags, _passthrough(body))
    outs = bind("while_loop", *ops, running, cond=cond_any, body=body_masked)
    return outs[:-1], _dims(flags)


def _masked_loop(cond_b: Func, body_b: Func, flags, passthrough) -> tuple:
    """(cond, body) of the loop over all lanes, carrying each lane's `running` flag last."""
    avals = [p.aval for p in body_b.params] + [cond_b.outs[0].aval]  # already (B,)
    hints = [p.hint for p in body_b.params] + ["running"]

    def any_lane(*carry):
        return [bind("reduce_or", carry[-1], axes=(0,))]

    def step(*carry):
        old, running = list(carry[:-1]), carry[-1]
        new = inline(body_b, old)
        kept = [_frozen(running, n, o) if f and not p else o
                for n, o, f, p in zip(new, old, flags, passthrough)]
        return kept + [inline(cond_b, kept)[0]]

    return (build_func(cond_b.name, avals, hints, any_lane),
            build_func(body_b.name, avals, hints, step))


def _frozen(running, new, old):
    """The new carry on running lanes, the old one on finished lanes (named as the carry)."""
    kept = bind("select", lane_mask(running, new), new, old)
    if isinstance(kept, Var) and isinstance(old, Var):
        kept.hint = old.hint
    return kept


@BATCH.register("while_loop_taped")
def _while_taped(args, dims, *, axis_size, cond, body):
    """Lanes that stop at different times run one loop over all lanes, each finished lane's
    carry frozen (as while_loop batches): its tape then records the frozen carry, which fails
    the condition, and the reverse sweep (see ad/control.py) passes a lane's cotangent through
    every step its lane did not run."""
    flags, pred_b, cond_b, body_b, ops = _loop_parts(args, dims, axis_size, cond, body)
    n = len(ops)
    if pred_b:
        running = inline(cond_b, ops)[0]
        cond_any, body_masked = _masked_loop(cond_b, body_b, flags, _passthrough(body))
        outs = bind("while_loop_taped", *ops, running, cond=cond_any, body=body_masked)
        outs = list(outs[:n]) + list(outs[n + 1:2 * n + 1])  # without the running flags
    else:
        outs = bind("while_loop_taped", *ops, cond=cond_b, body=body_b)
    tapes = [moveaxis(t, 1, 0) if f else t for t, f in zip(outs[n:], flags)]
    return list(outs[:n]) + tapes, _dims(flags) * 2


# ---------------------------------------------------------------- scan
@BATCH.register("scan")
def _scan(args, dims, *, axis_size, body, num_consts, num_carry, **params):
    n_in = num_consts + num_carry
    flags = [d is not None for d in dims]
    flags = _carry_fixpoint(_carries_only(body, num_carry), flags, axis_size, num_consts)
    carry_b = flags[num_consts:n_in]
    n_ys = len(body.outs) - num_carry
    body_b, out_b = batch_func(body, flags, axis_size, force=carry_b + [False] * n_ys)
    consts = args[:num_consts]
    carry = [to_batched(x, d, axis_size) if f else x
             for x, d, f in zip(args[num_consts:n_in], dims[num_consts:n_in], carry_b)]
    xs = [moveaxis(x, 0, 1) if d is not None else x for x, d in zip(args[n_in:], dims[n_in:])]
    outs = bind("scan", *consts, *carry, *xs, body=body_b, num_consts=num_consts,
                num_carry=num_carry, **params)
    ys = [moveaxis(y, 1, 0) if b else y for y, b in zip(outs[num_carry:], out_b[num_carry:])]
    return list(outs[:num_carry]) + ys, _dims(carry_b) + _dims(out_b[num_carry:])


def _carries_only(body: Func, num_carry: int) -> Func:
    return Func(body.name, body.params, body.eqns, body.outs[:num_carry], body.loc)
