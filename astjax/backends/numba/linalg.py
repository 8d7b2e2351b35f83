"""Lowerings of the linear-algebra primitives: operands as contiguous (B, m, n) stacks handed
to the runtime's `*_batch` helpers, results reshaped back to their batch axes."""
from .emit import LOWER, dims, dtype_text, transposed, tuple_text
from .layout import out_aval


def _stack(fe, name, aval, lines, dtype=None):
    """`name` as a contiguous (B, m, n) array of `dtype` (its own by default)."""
    d = dims(name, aval)
    view = fe.fresh(name + "_stack")
    cast = f".astype({dtype_text(dtype)})" if dtype is not None and dtype != aval.dtype else ""
    lines.append(f"{view} = np.ascontiguousarray({name}{cast}.reshape((-1, {d[-2]}, {d[-1]})))")
    return view


def _batch(d, tail):
    lead = d[:len(d) - tail]
    return " * ".join(f"({x})" for x in lead) if lead else "1"


def _outputs(fe, eqn, outs, trailing):
    """Output stacks for each result: `trailing[k]` of its axes follow the batch."""
    lines, stacks = [], []
    for k, name in enumerate(outs):
        aval = out_aval(eqn, k)
        d = dims(name, aval)
        stack = fe.fresh(name + "_stack")
        shape = [_batch(d, trailing[k])] + d[len(d) - trailing[k]:]
        lines.append(f"{stack} = np.empty({tuple_text(shape)}, {dtype_text(aval.dtype)})")
        stacks.append(stack)
    return lines, stacks


def _unstack(eqn, outs, stacks):
    lines = []
    for k, (name, stack) in enumerate(zip(outs, stacks)):
        lines.append(f"{name} = {stack}.reshape({tuple_text(dims(name, out_aval(eqn, k)))})")
    return lines


def _factorisation(helper, trailing, *flags):
    """The rule for a one-operand decomposition: `rt.<helper>(stack, *out_stacks, *flags)`,
    each result stacked with `trailing[k]` axes after the batch, flags read from the params."""
    def lower(fe, eqn, ins, outs):
        lines = []
        a = _stack(fe, ins[0], eqn.ins[0].aval, lines)
        more, stacks = _outputs(fe, eqn, outs, trailing)
        args = [a] + stacks + [str(eqn.params[f]) for f in flags]
        return lines + more + [f"rt.{helper}({', '.join(args)})"] + _unstack(eqn, outs, stacks)
    return lower


LOWER.set("cholesky", _factorisation("cholesky_batch", [2]))
LOWER.set("lu", _factorisation("lu_batch", [2, 1, 1]))
LOWER.set("qr", _factorisation("qr_batch", [2, 2], "full_matrices"))
LOWER.set("eigh", _factorisation("eigh_batch", [2, 1], "lower"))


@LOWER.register("triangular_solve")
def _triangular_solve(fe, eqn, ins, outs):
    p, out = eqn.params, out_aval(eqn)
    lines = []
    a = _stack(fe, ins[0], eqn.ins[0].aval, lines, out.dtype)
    b = _stack(fe, ins[1], eqn.ins[1].aval, lines, out.dtype)
    low = p["lower"] != p["transpose_a"]
    mat = transposed(a, (0, 2, 1)) if p["transpose_a"] else a
    rhs = b
    if not p["left_side"]:  # x op(a) = b  is  op(a)^T x^T = b^T
        mat, rhs, low = transposed(mat, (0, 2, 1)), transposed(b, (0, 2, 1)), not low
    flip = "" if low else "[:, ::-1, ::-1]"  # an upper system, read backwards, is lower
    rows = "" if low else "[:, ::-1, :]"
    m, r, x = fe.fresh("tri"), fe.fresh("rhs"), fe.fresh("solved")
    lines += [f"{m} = np.ascontiguousarray({mat}{flip})",
              f"{r} = np.ascontiguousarray({rhs}{rows})",
              f"{x} = np.empty({r}.shape, {dtype_text(out.dtype)})",
              f"rt.lower_solve_batch({m}, {r}, {x}, {p['unit_diagonal']})"]
    result = f"{x}{rows}" if p["left_side"] else transposed(f"{x}{rows}", (0, 2, 1))
    lines.append(f"{outs[0]} = np.ascontiguousarray({result})"
                 f".reshape({tuple_text(dims(outs[0], out))})")
    return lines


_SVD = _factorisation("svd_batch", [1, 2, 2], "full_matrices")
_SINGULAR_VALUES = _factorisation("singular_values_batch", [1])


@LOWER.register("svd")
def _svd(fe, eqn, ins, outs):
    return (_SVD if eqn.params["compute_uv"] else _SINGULAR_VALUES)(fe, eqn, ins, outs)


def _object_mode_call(fe, eqn, ins, outs):
    """The operand made contiguous and every result allocated, for a runtime helper that fills
    them in object mode (any batch shape)."""
    source = fe.fresh(ins[0] + "_in")
    lines = [f"{source} = np.ascontiguousarray({ins[0]})"]
    for k, name in enumerate(outs):
        aval = out_aval(eqn, k)
        lines.append(f"{name} = np.empty({tuple_text(dims(name, aval))}, "
                     f"{dtype_text(aval.dtype)})")
    return source, lines


def _placeholder(dtype):
    return f"np.empty((1,), {dtype_text(dtype)})"


@LOWER.register("eig")
def _eig(fe, eqn, ins, outs):
    """rt.eig_into fills w and the eigenvectors asked for (placeholders stand for the rest)."""
    left, right = (eqn.params["compute_left_eigenvectors"],
                   eqn.params["compute_right_eigenvectors"])
    source, lines = _object_mode_call(fe, eqn, ins, outs)
    unused = _placeholder(out_aval(eqn, 0).dtype)
    vl = outs[1] if left else unused
    vr = outs[1 + left] if right else unused
    return lines + [f"rt.eig_into({source}, {outs[0]}, {vl}, {vr}, {left}, {right})"]


@LOWER.register("schur")
def _schur(fe, eqn, ins, outs):
    vectors = eqn.params["compute_schur_vectors"]
    source, lines = _object_mode_call(fe, eqn, ins, outs)
    z = outs[1] if vectors else _placeholder(out_aval(eqn, 0).dtype)
    return lines + [f"rt.schur_into({source}, {outs[0]}, {z}, {vectors})"]
