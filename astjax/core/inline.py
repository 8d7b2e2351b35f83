"""Inlining: applying a Func to operands inside the function being built.

Each equation is re-applied with `bind`, so the inlined body lands in the current builder (or
runs eagerly on NumPy when nothing is being built)."""
from .bind import bind, current_builder
from .ir import Func, Lit, Var


def inline(func: Func, args) -> list:
    """The outputs of `func` applied to `args` (one per parameter)."""
    if len(args) != len(func.params):
        raise ValueError(f"{func.name} takes {len(func.params)} operands, got {len(args)}")
    env = {p.id: a for p, a in zip(func.params, args)}
    read = lambda atom: env[atom.id] if isinstance(atom, Var) else atom.value  # noqa: E731
    builder = current_builder()
    for eqn in func.eqns:
        if builder is not None:
            builder.loc, builder.note = eqn.loc or builder.loc, eqn.note or builder.note
        outs = bind(eqn.prim, *[read(a) for a in eqn.ins], **eqn.params)
        outs = outs if isinstance(outs, list) else [outs]
        for var, value in zip(eqn.outs, outs):
            env[var.id] = value
            if isinstance(value, Var) and not value.hint:
                value.hint = var.hint
    return [read(o) if isinstance(o, (Var, Lit)) else o for o in func.outs]
