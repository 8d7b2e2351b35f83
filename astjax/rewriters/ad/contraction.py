"""Derivatives of the contractions (dot_general, einsum): bilinear, so each operand's tangent
or cotangent is the contraction with the other operands in its place."""
from astjax.core.bind import bind
from astjax.errors import TransformError

from .rules import VJP, add_all, tangent_rule
from .util import aval, broadcast_to, unbroadcast


@VJP.register("dot_general")
def _dot_general(ct, a, b, out, dimension_numbers):
    lhs, rhs, result = _subscripts(aval(a).ndim, aval(b).ndim, dimension_numbers)
    return [_einsum_bar(ct, result, [(rhs, b)], lhs, a), _einsum_bar(ct, result, [(lhs, a)], rhs, b)]


def _subscripts(na, nb, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(list(lc) + list(lb), list(rc) + list(rb)):
        sb[j] = sa[i]
    out = ([sa[i] for i in lb] + [s for i, s in enumerate(sa) if i not in tuple(lc) + tuple(lb)]
           + [s for j, s in enumerate(sb) if j not in tuple(rc) + tuple(rb)])
    return "".join(sa), "".join(sb), "".join(out)


def _einsum_bar(ct, result, others, target, x):
    """Cotangent of operand `x` (subscripts `target`) of an einsum with output `result`."""
    present = set(result).union(*[set(s) for s, _ in others])
    kept = "".join(dict.fromkeys(c for c in target if c in present))
    spec = ",".join([result] + [s for s, _ in others]) + "->" + kept
    bar = bind("einsum", ct, *[v for _, v in others], subscripts=spec)
    if kept != target:  # letters only `x` has were summed away: broadcast them back
        bar = broadcast_to(bar, aval(x).shape, [target.index(c) for c in kept])
    return unbroadcast(bar, x)


def _explicit(subscripts: str) -> str:
    """'ij,jk' -> 'ij,jk->ik': NumPy's implicit output (letters seen once, sorted)."""
    if "->" in subscripts:
        return subscripts
    letters = [c for c in subscripts if c.isalpha()]
    return subscripts + "->" + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))


@VJP.register("einsum")
def _einsum(ct, *xs, out, subscripts):
    inputs, result = _explicit(subscripts.replace(" ", "")).split("->")
    specs = inputs.split(",")
    if any(len(set(s)) != len(s) or "." in s for s in specs):
        raise TransformError("no reverse-mode rule for einsum with repeated or '...' subscripts",
                             hint="write the contraction with explicit subscripts per axis")
    return [_einsum_bar(ct, result, [(s, v) for j, (s, v) in enumerate(zip(specs, xs)) if j != i],
                        specs[i], x) if hasattr(x, "aval") else None
            for i, x in enumerate(xs)]


# ---------------------------------------------------------------- forward mode
@tangent_rule("dot_general")
def _dot_general_jvp(p, t, out, dimension_numbers):
    a, b = p
    return add_all([
        None if t[0] is None else bind("dot_general", t[0], b, dimension_numbers=dimension_numbers),
        None if t[1] is None else bind("dot_general", a, t[1], dimension_numbers=dimension_numbers)])


@tangent_rule("einsum")
def _einsum_jvp(p, t, out, subscripts):
    return add_all([None if d is None else
                    bind("einsum", *[d if j == i else x for j, x in enumerate(p)],
                         subscripts=subscripts) for i, d in enumerate(t)])
