"""Batching: from core form f(params) -> outs for one example, the core form of f over a batch

    f_batched(params...) -> outs        (batched params and every output carry a leading axis)

Each equation reading a batched value is re-emitted by its primitive's batching rule from the
table (`BATCH`, contract in `util`); equations reading only unbatched values are
copied unchanged, so work that does not depend on the example is done once. The batch axis is
always axis 0, which keeps the rules simple and the output readable: batched values keep the
user's names. Control flow is batched by batching its bodies with this same function.
"""
from astjax.core import primitives
from astjax.core.avals import AVal
from astjax.core.bind import Builder, aval, building
from astjax.core.ir import MISSING, Eqn, Func, Var
from astjax.core.simplify import eliminate_dead_code
from astjax.errors import TransformError

from .util import BATCH, current_axis_name
from .util import batched as to_batched


def vmap_func(func: Func, batched: list, axis_size: int, name: str = None) -> Func:
    """f batched over the params marked in `batched`; every output batched at axis 0."""
    out, _ = batch_func(func, batched, axis_size, force=[True] * len(func.outs), name=name)
    return out


def batch_func(func: Func, batched: list, axis_size: int, force=None, name=None) -> tuple:
    """(batched Func, which outputs are batched). Outputs marked in `force` are batched even
    when they do not depend on a batched param (broadcast), so a body's carries line up."""
    params = [Var(batched_aval(p.aval, axis_size), p.hint) if b else p
              for p, b in zip(func.params, batched)]
    env = {p.id: (new, 0 if b else None) for p, new, b in zip(func.params, params, batched)}
    builder = Builder()
    with building(builder):
        for eqn in func.eqns:
            _batch_eqn(eqn, env, axis_size, builder)
        outs = [_read(env, o) for o in func.outs]
        force = force or [False] * len(outs)
        outs = [(to_batched(x, d, axis_size), 0) if f and d is None and not _missing(x) else (x, d)
                for (x, d), f in zip(outs, force)]
    result = Func(name or func.name, params, builder.eqns, [x for x, _ in outs], func.loc)
    return eliminate_dead_code(result), [d is not None for _, d in outs]


def batched_aval(a: AVal, axis_size: int) -> AVal:
    return AVal((axis_size,) + tuple(a.shape), a.dtype, a.weak)


def _read(env, atom) -> tuple:
    """(value, batch dim) of an atom of the original function."""
    if isinstance(atom, Var):
        return env.get(atom.id, (atom, None))
    return atom, None


def _names_this_axis(eqn: Eqn) -> bool:
    """A collective over the axis being batched: it depends on the batch even when its operand
    does not (psum(1, axis) is the axis' size)."""
    name = current_axis_name()
    return (name is not None and primitives.get(eqn.prim).kind == "collective"
            and eqn.params.get("axis_name") == name)


def _missing(x) -> bool:
    return x is MISSING


def _batch_eqn(eqn: Eqn, env: dict, axis_size: int, builder: Builder) -> None:
    ins, dims = zip(*[_read(env, a) for a in eqn.ins]) if eqn.ins else ((), ())
    builder.loc, builder.note = eqn.loc, eqn.note
    if all(d is None for d in dims) and not _names_this_axis(eqn):  # the same for every example
        builder.eqns.append(Eqn(eqn.outs, eqn.prim, list(ins), eqn.params, eqn.loc, eqn.note))
        env.update({o.id: (o, None) for o in eqn.outs})
        return
    prim = primitives.get(eqn.prim)
    rule = BATCH.get(eqn.prim)
    if rule is None:
        raise TransformError(f"lax.{eqn.prim} has no batching rule yet", eqn.loc,
                             hint="move it out of the vmapped function, or loop in Python")
    outs, out_dims = rule(list(ins), list(dims), axis_size=axis_size, **eqn.params)
    if not prim.multiple_results:
        outs, out_dims = [outs], [out_dims]
    for old, new, d in zip(eqn.outs, outs, out_dims):
        if isinstance(new, Var) and old.hint and not new.hint:
            new.hint = old.hint
        _check_dim(eqn, new, d, old, axis_size)
        env[old.id] = (new, d)


def _check_dim(eqn, new, d, old, axis_size):
    """A rule's result must be the per-example value with a leading batch axis (a bug check)."""
    want = tuple(old.aval.shape) if d is None else (axis_size,) + tuple(old.aval.shape)
    got = tuple(aval(new).shape)
    if got != want and -1 not in want:
        raise TransformError(f"the batching rule of lax.{eqn.prim} gave shape {got}, "
                             f"expected {want}", eqn.loc)
