"""Small helpers shared by the derivative rules."""
import math
import numpy as np

from astjax.core.bind import bind
from astjax.core.ir import Lit, Var
from astjax.errors import TransformError


def aval(x):
    return x.aval if isinstance(x, (Var, Lit)) else None


def user_name(atom, default: str) -> str:
    """The user's name of a value (its hint, else where it came from), for the names of
    the values derived from it."""
    return getattr(atom, "hint", "") or getattr(atom, "origin", "") or default


def differentiable(atom) -> bool:
    """Only float (and complex) Vars carry derivatives; literals and integers do not."""
    return isinstance(atom, Var) and atom.aval.dtype.kind in "fc"


def zeros_like(atom):
    a = aval(atom)
    if any(d < 0 for d in a.shape):  # a while loop's tape: its length is known at run time,
        zero = np.zeros((), a.dtype)  # so the zeros take their shape from the tape itself
        return bind("select", bind("eq", atom, atom), zero, zero)
    return bind("full", 0, shape=a.shape, dtype=a.dtype.name)


def value(atom):
    return atom.value if isinstance(atom, Lit) else atom


def unbroadcast(ct, target):
    """Sum `ct` down to the shape of `target` (undoing NumPy broadcasting) and match its dtype."""
    shape, dtype = aval(target).shape, aval(target).dtype
    ct_shape = ct.aval.shape
    lead = len(ct_shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and ct_shape[lead + i] != 1)
    if axes:
        ct = bind("reduce_sum", ct, axes=axes)
    if ct.aval.shape != tuple(shape):
        ct = bind("reshape", ct, new_sizes=tuple(shape))
    if ct.aval.dtype != dtype:
        ct = bind("convert", ct, dtype=np.dtype(dtype).name)
    return ct


def expand_reduced(value, like, axes):
    """A result reduced over `axes` of `like`, broadcast back to `like`'s shape."""
    shape = aval(like).shape
    kept = [i for i in range(len(shape)) if i not in axes]
    return broadcast_to(value, shape, kept)


def product_of_others(x, axes):
    """For each element of x, the product of the other elements of its group over `axes`:
    exclusive products from both ends of the flattened group, so a zero in x gives the right,
    finite value where out / x would give nan."""
    shape = aval(x).shape
    kept = [i for i in range(len(shape)) if i not in axes]
    reduced = sorted(axes)
    perm = tuple(kept + reduced)
    in_place = perm == tuple(range(len(shape)))
    moved = x if in_place else bind("transpose", x, permutation=perm)
    group = [shape[i] for i in reduced]
    last = len(kept)
    flat = bind("reshape", moved, new_sizes=tuple(shape[i] for i in kept) + (math.prod(group),))
    before = shifted(bind("cumprod", flat, axis=last, reverse=False), last, 1)
    after = shifted(bind("cumprod", flat, axis=last, reverse=True), last, -1)
    others = bind("reshape", bind("mul", before, after), new_sizes=aval(moved).shape)
    if in_place:
        return others
    return bind("transpose", others, permutation=tuple(int(i) for i in np.argsort(perm)))


def shifted(y, axis, step, fill=1.0):
    """y moved |step| places along `axis` (step > 0: towards its end, < 0: towards its start),
    the places left empty filled with `fill`."""
    config = [(0, 0, 0)] * len(aval(y).shape)
    config[axis] = (step, -step, 0)  # pad one end, cut the other (negative padding)
    return bind("pad", y, fill, config=tuple(config))


def linear_recurrence(a, b, axis, reverse=False):
    """h with h_i = a_i * h_(i-1) + b_i along `axis` (h_(-1) = 0; from the end with reverse),
    by log2(n) doubling steps of products and sums only: no division, so it and its
    derivatives of every order are exact where some a_i are zero."""
    n = aval(b).shape[axis]
    if isinstance(n, (int, np.integer)) and n < 0:  # (a symbolic length records its guards)
        raise TransformError("the derivative of a running product along a while loop's tape "
                             "(its length is known only at run time) is not supported",
                             hint="use a fori_loop / scan with a fixed trip count")
    a = bind("add", a, bind("mul", b, 0.0))  # a at b's full shape
    sign = -1 if reverse else 1
    distance = 1
    while distance < n:
        b = bind("add", b, bind("mul", a, shifted(b, axis, sign * distance, 0.0)))
        a = bind("mul", a, shifted(a, axis, sign * distance, 1.0))
        distance *= 2
    return b


def running_source(x, out, axis, reverse):
    """For cummax/cummin: the index along `axis` each element of `out` was taken from, the
    nearest position at or before it (after it, for reverse) where x equals the running
    extremum.  Derivatives flow along it; a tie goes to the later (earlier) element."""
    a = aval(x)
    hit = bind("eq", x, out)
    iota = bind("iota", dtype="int64", shape=a.shape, dimension=axis)
    if reverse:
        last = a.shape[axis] - 1
        return bind("cummin", bind("select", hit, iota, last), axis=axis, reverse=True)
    return bind("cummax", bind("select", hit, iota, 0), axis=axis, reverse=False)


def extremum_hits(x, out, axes):
    """1 where x attains its reduced max/min `out` (ties included), 0 elsewhere, in x's dtype."""
    return bind("convert", bind("eq", x, expand_reduced(out, x, axes)), dtype=aval(x).dtype.name)


def broadcast_to(x, shape, dims):
    return bind("broadcast_in_dim", x, shape=tuple(shape), broadcast_dimensions=tuple(dims))
