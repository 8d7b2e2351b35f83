"""Control flow: cond and switch are `stablehlo.case`, while loops and scans `stablehlo.while`.

The reverse sweep of a data-dependent while loop needs a tape of its carries whose length is
the trip count, known only at run time, while XLA's shapes are static. A taped loop here writes
into a buffer of `capacity` rows and counts its trips; when a run needed more rows, the
function reports it and is compiled again with room enough (see `Tapes`)."""
import numpy as np

from astjax.errors import TransformError

from .emit import LOWER
from .tape import Tape


def _branch_region(body, func, operands, out_avals):
    region = body.region([])
    outs = region.lower(func, operands)
    region.ret([region.coerce([v], a.shape, a.dtype)[0] for v, a in zip(outs, out_avals)])
    return region.text()


def _case(body, eqn, index, operands, branches):
    avals = [v.aval for v in eqn.outs]
    regions = [_branch_region(body, f, list(operands), avals) for f in branches]
    return body.op("stablehlo.case", [index], [(a.shape, a.dtype) for a in avals], "",
                   regions, hint=eqn.prim)


@LOWER.register("cond")
def _cond(body, eqn, pred, *operands):
    pred = body.reshape(body.convert(pred, np.bool_), ())
    index = body.select(pred, body.constant(0, np.int32), body.constant(1, np.int32))
    return _case(body, eqn, index, operands, eqn.params["branches"])


@LOWER.register("switch")
def _switch(body, eqn, index, *operands):
    branches = eqn.params["branches"]
    index = body.reshape(body.convert(index, np.int32), ())
    index = body.op1("stablehlo.clamp", [body.constant(0, np.int32), index,
                                         body.constant(len(branches) - 1, np.int32)], (), np.int32)
    return _case(body, eqn, index, operands, branches)


def while_op(body, carry, test, step, hint="while"):
    """`stablehlo.while` over `carry` (Values): test(region, values) -> pred Value,
    step(region, values) -> new values (converted to the carry's types)."""
    types = [(v.dtype, v.shape) for v in carry]
    cond = body.region(types)
    cond.ret([cond.reshape(cond.convert(test(cond, cond.args), np.bool_), ())])
    loop = body.region(types)
    new = step(loop, loop.args)
    loop.ret([loop.coerce([v], c.shape, c.dtype)[0] for v, c in zip(new, carry)])
    return body.op("stablehlo.while", list(carry), [(v.shape, v.dtype) for v in carry], "",
                   [cond.text(), loop.text()], hint=hint)


@LOWER.register("while_loop")
def _while(body, eqn, *carry):
    p = eqn.params
    carry = [body.coerce([v], o.aval.shape, o.aval.dtype)[0] for v, o in zip(carry, eqn.outs)]
    return while_op(body, carry, lambda r, vs: r.lower(p["cond"], list(vs))[0],
                    lambda r, vs: r.lower(p["body"], list(vs)))


@LOWER.register("while_loop_taped")
def _while_taped(body, eqn, *carry):
    """The loop with a counter and one buffer per carry, row `count` written at the start of
    each trip (clamped to the last row once the buffer is full: the run is then redone)."""
    if body.parent is not None:
        raise TransformError("the XLA backend cannot yet differentiate a data-dependent while "
                             "loop inside another loop or branch", eqn.loc,
                             hint='use backend="numpy" or "numba" for this function')
    p = eqn.params
    n = len(carry)
    carry = [body.coerce([v], o.aval.shape, o.aval.dtype)[0] for v, o in zip(carry, eqn.outs[:n])]
    capacity = body.tapes.capacity
    buffers = [body.constant(0, v.dtype, (capacity,) + v.shape) for v in carry]
    count = body.constant(0, np.int64)

    def step(r, values):
        old, bufs, k = values[:n], values[n:2 * n], values[-1]
        zero = r.constant(0, np.int64)
        bufs = [r.op1("stablehlo.dynamic_update_slice",
                      [buf, r.reshape(v, (1,) + v.shape), k] + [zero] * v.ndim, buf.shape, buf.dtype)
                for buf, v in zip(bufs, old)]
        new = r.lower(p["body"], list(old))
        return list(new) + bufs + [r.binary("stablehlo.add", k, r.constant(1, np.int64))]

    outs = while_op(body, carry + buffers + [count],
                    lambda r, vs: r.lower(p["cond"], list(vs[:n]))[0], step, hint="taped")
    final, bufs, count = outs[:n], outs[n:2 * n], outs[-1]
    body.tapes.counts.append(count)
    return list(final) + [Tape(buf, count) for buf in bufs]


@LOWER.register("scan")
def _scan(body, eqn, *operands):
    p = eqn.params
    nc, nk = p["num_consts"], p["num_carry"]
    consts, carry, xs = operands[:nc], operands[nc:nc + nk], operands[nc + nk:]
    carry = [body.coerce([v], o.aval.shape, o.aval.dtype)[0] for v, o in zip(carry, eqn.outs[:nk])]
    ys_avals = [v.aval for v in eqn.outs[nk:]]
    if p["length"] >= 0:
        length = body.constant(p["length"], np.int64)
        rows = p["length"]
    else:  # over a while loop's tape: as many steps as it recorded
        tape = next(x for x in xs if isinstance(x, Tape))
        length, rows = tape.count, tape.buffer.shape[0]
    xs = [x.buffer if isinstance(x, Tape) else x for x in xs]
    ys = [body.constant(0, a.dtype, (rows,) + tuple(a.shape[1:])) for a in ys_avals]
    start = body.constant(0, np.int64)
    nys = len(ys)

    def step(r, values):
        i, c, bufs = values[0], values[1:1 + nk], values[1 + nk:]
        t = i
        if p.get("reverse"):
            t = r.binary("stablehlo.subtract", r.binary("stablehlo.subtract", length, i),
                         r.constant(1, np.int64))
        zero = r.constant(0, np.int64)
        x_t = [r.reshape(r.op1("stablehlo.dynamic_slice", [x, t] + [zero] * (x.ndim - 1),
                               (1,) + x.shape[1:], x.dtype,
                               f"slice_sizes = array<i64: {', '.join(map(str, (1,) + x.shape[1:]))}>"),
                         x.shape[1:]) for x in xs]
        outs = r.lower(p["body"], list(consts) + list(c) + x_t)
        new_c, y = outs[:nk], outs[nk:]
        bufs = [r.op1("stablehlo.dynamic_update_slice",
                      [buf, r.reshape(r.coerce([v], buf.shape[1:], buf.dtype)[0], (1,) + buf.shape[1:]),
                       t] + [zero] * (buf.ndim - 1), buf.shape, buf.dtype)
                for buf, v in zip(bufs, y)]
        return [r.binary("stablehlo.add", i, r.constant(1, np.int64))] + list(new_c) + bufs

    outs = while_op(body, [start] + carry + ys,
                    lambda r, vs: r.compare(vs[0], length, "LT"), step, hint="scan")
    final, stacked = outs[1:1 + nk], outs[1 + nk:1 + nk + nys]
    if p["length"] < 0:  # ys of a scan over a tape are tapes too (never read past `count`)
        stacked = [Tape(s, length) for s in stacked]
    return list(final) + list(stacked)
