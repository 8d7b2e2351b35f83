"""lax.cond, switch, while_loop, fori_loop and scan: eager on NumPy, or recorded as core form.

Eagerly they are plain Python control flow. During compilation each body is built by calling it
on fresh abstract values (`core.build`), closed over what it reads from outside (those values
become explicit operands), and recorded as one control-flow equation.
"""
import numpy as np

from .core.array import as_array
from .core.avals import AVal, canonical_value, result_dtype, x64 as x64_enabled
from .core.bind import bind, current_builder
from .core.dims import DimExpr
from .core.build import build_body
from .core.closure import close, free_vars
from .core.ir import MISSING, Lit, Var
from .errors import ControlFlowError
from .tree_util import leaf_paths, tree_flatten, tree_unflatten


def _compiling() -> bool:
    return current_builder() is not None


def _named(kind: str) -> str:
    """A nested body's name, with the user's line it comes from: `then_12`, `body_30`."""
    loc = current_builder().loc
    return f"{kind}_{loc.line}" if loc is not None else kind


def _avals(leaves) -> list:
    from .core.bind import aval
    return [aval(x) for x in leaves]


# ---------------------------------------------------------------- cond / switch
def cond(pred, true_fun, false_fun, *operands):
    if not isinstance(pred, Var):
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    _check_scalar_pred(pred)
    if pred.dtype != np.bool_:
        pred = bind("ne", pred, 0)
    return _branches("cond", pred, [true_fun, false_fun], operands, ["then", "else"])


def switch(index, branches, *operands):
    branches = list(branches)
    if not isinstance(index, Var):
        return branches[int(np.clip(int(index), 0, len(branches) - 1))](*operands)
    _check_scalar_pred(index)
    index = bind("convert", index, dtype="int32")
    return _branches("switch", index, branches, operands, [f"branch{i}" for i in range(len(branches))])


def _check_scalar_pred(pred):
    if pred.shape != ():
        raise ControlFlowError(
            f"the condition is an array of shape {pred.shape}; it must be a scalar",
            hint="reduce it with jnp.any(...) or jnp.all(...), or select elementwise with jnp.where")


def _branches(prim, selector, funs, operands, names):
    leaves, in_tree = tree_flatten(operands)
    in_avals = _avals(leaves)
    bodies = [build_body(f, in_tree, in_avals) for f in funs]
    _fill_missing(bodies)
    out_tree = _same_structure(bodies)
    target = _join_avals([[_aval(o) for o in b.outs] for b in bodies], names)
    for body in bodies:
        _coerce_outs(body, target)
    if prim == "cond" and not any(b.eqns for b in bodies):
        return tree_unflatten(out_tree, _select_outputs(selector, bodies, leaves))
    captured = _union_free(bodies)
    funcs = tuple(close(_named(n), b.params, b.eqns, b.outs, captured)
                  for n, b in zip(names, bodies))
    outs = bind(prim, selector, *leaves, *captured, branches=funcs)
    return tree_unflatten(out_tree, outs)


def _select_outputs(pred, bodies, operands) -> list:
    """Branches that only pick values: a select per output instead of a cond."""
    then_body, else_body = bodies
    def outer(body, atom):  # a branch parameter stands for the operand passed in
        index = next((i for i, p in enumerate(body.params) if p is atom), None)
        if index is not None:
            return operands[index]
        return atom.value if isinstance(atom, Lit) else atom
    return [bind("select", pred, outer(then_body, a), outer(else_body, b))
            for a, b in zip(then_body.outs, else_body.outs)]


def _fill_missing(bodies) -> None:
    """Where one branch leaves an output MISSING and another assigns it, use zeros of that."""
    if not any(o is MISSING for b in bodies for o in b.outs):
        return
    children = [_child_leaves(b) for b in bodies]
    for i in range(len(children[0])):
        donor = next((c[i] for c in children if not _is_missing(c[i][1])), None)
        if donor is None:
            continue
        for body, body_children in zip(bodies, children):
            if _is_missing(body_children[i][1]):
                body_children[i] = (donor[0], _zeros_in(body, donor[1]))
    for body, body_children in zip(bodies, children):
        body.outs = [a for _, leaves in body_children for a in leaves]
        body.out_tree = tree_flatten(tuple(tree_unflatten(t, [0] * t.num_leaves)
                                           for t, _ in body_children))[1]


def _child_leaves(body) -> list:
    """[(subtree, its leaves)] for each element of a body's tuple output."""
    tree = body.out_tree
    if tree.kind is not tuple:
        return [(tree, list(body.outs))]
    out, start = [], 0
    for child in tree.children:
        out.append((child, list(body.outs[start:start + child.num_leaves])))
        start += child.num_leaves
    return out


def _is_missing(leaves) -> bool:
    return len(leaves) == 1 and leaves[0] is MISSING


def _zeros_in(body, like: list) -> list:
    from .core.bind import Builder, building
    builder = Builder()
    with building(builder):
        zeros = [bind("full", 0, shape=_aval(a).shape, dtype=_aval(a).dtype.name) for a in like]
    body.eqns = body.eqns + builder.eqns
    return zeros


def _aval(atom) -> AVal:
    return atom.aval


def _same_structure(bodies):
    trees = {b.out_tree for b in bodies}
    if len(trees) != 1:
        listed = " vs ".join(str(b.out_tree) for b in bodies)
        raise ControlFlowError(f"the branches return different structures: {listed}",
                               hint="make every branch return the same tuple/dict of arrays")
    return bodies[0].out_tree


def _join_avals(per_body: list, names) -> list:
    """One aval per output that every branch's value converts to (NumPy's promotion)."""
    joined = []
    for i, avals in enumerate(zip(*per_body)):
        if any(a.shape != avals[0].shape for a in avals[1:]):  # sizes may be symbolic: ==
            listed = ", ".join(f"{n}: {a.shape}" for n, a in zip(names, avals))
            raise ControlFlowError(f"output {i} has different shapes in the branches ({listed})",
                                   hint="give it the same shape in every branch")
        dtype, weak = result_dtype(*avals)
        joined.append(AVal(avals[0].shape, dtype, weak))
    return joined


def _coerce_outs(body, target: list) -> None:
    """Convert a body's first len(target) outputs in place (appending converts) to `target`."""
    from .core.bind import Builder, building
    builder = Builder()
    with building(builder):
        converted = [_converted(o, t) for o, t in zip(body.outs, target)]
    body.outs = converted + body.outs[len(target):]
    body.eqns = body.eqns + builder.eqns


def _converted(atom, target: AVal):
    if _aval(atom).dtype == target.dtype:
        return atom
    if isinstance(atom, Lit) and target.weak and isinstance(atom.value, (bool, int, float)):
        return Lit(np.asarray(atom.value, target.dtype).item())  # stays a weak Python scalar
    return bind("convert", atom, dtype=target.dtype.name)


def _union_free(bodies) -> list:
    captured, seen = [], set()
    for b in bodies:
        for v in free_vars(b.params, b.eqns, b.outs):
            if v.id not in seen:
                seen.add(v.id)
                captured.append(v)
    return captured


# ---------------------------------------------------------------- while_loop
def while_loop(cond_fun, body_fun, init_val, names=None):
    if not _compiling():
        val = init_val
        while bool(cond_fun(val)):
            val = body_fun(val)
        return _eager_results(val)
    init_val, still = _without_missing(init_val, lambda c, _: body_fun(c), None)
    if still:
        keep, inject, drop = _static_positions(init_val, still)
        names = [names[i] for i in keep] if names else None
        out = while_loop(lambda c: cond_fun(inject(c)), lambda c: drop(body_fun(inject(c))),
                         drop(init_val), names)
        return inject(out)
    leaves, tree = tree_flatten(init_val)
    args_tree = tree_flatten((init_val,))[1]
    names = _leaf_names(init_val, names)
    avals = _avals(leaves)
    for _ in range(3):  # weakly typed carries may widen once (a Python 0 that meets floats)
        body = build_body(body_fun, args_tree, avals, names)
        widened = _widened_carry(avals, tree, body.out_tree, body.outs, names)
        if widened == avals:
            _coerce_outs(body, avals)
            break
        avals = widened
    cond_body = build_body(cond_fun, args_tree, avals, names)
    _check_loop_pred(cond_body)
    init = [_convert_to(x, a) for x, a in zip(leaves, avals)]
    captured = _union_free([body, cond_body])
    n = len(init)
    body_f = close(_named("body"), body.params, body.eqns, body.outs, captured)
    body_f.outs = body_f.outs + body_f.params[n:]
    cond_f = close(_named("cond"), cond_body.params, cond_body.eqns, cond_body.outs, captured)
    outs = bind("while_loop", *init, *captured, cond=cond_f, body=body_f)
    return tree_unflatten(tree, outs[:n])


def _without_missing(init_val, step, xs):
    """init_val with its MISSING elements replaced by zeros shaped like what one `step` assigns
    them, and the positions that no step assigns (they stay MISSING, outside the loop)."""
    if not isinstance(init_val, tuple) or not any(v is MISSING for v in init_val):
        return init_val, []
    present = tuple(v for v in init_val if v is not MISSING)

    def probe(present_args, x):
        it = iter(present_args)
        return step(tuple(MISSING if v is MISSING else next(it) for v in init_val), x)

    x_slice = None if xs is None else tree_map_leaves(lambda a: AVal(a.shape[1:], a.dtype), xs)
    leaves, tree = tree_flatten((present, x_slice))
    body = build_body(probe, tree, [x if isinstance(x, AVal) else _avals([x])[0] for x in leaves])
    init, still = list(init_val), []
    for i, (subtree, atoms) in enumerate(_child_leaves(body)):
        if init_val[i] is not MISSING:
            continue
        if _is_missing(atoms):
            still.append(i)
            continue
        init[i] = tree_unflatten(subtree, [bind("full", 0, shape=_aval(a).shape,
                                                dtype=_aval(a).dtype.name) for a in atoms])
    return tuple(init), still


def tree_map_leaves(f, tree):
    from .core.bind import aval
    leaves, t = tree_flatten(tree)
    return tree_unflatten(t, [f(aval(x)) for x in leaves])


def _static_positions(init_val, still):
    """(kept positions, inject MISSING back, drop the MISSING positions) for a tuple carry."""
    keep = [i for i in range(len(init_val)) if i not in still]

    def inject(c):
        it = iter(c)
        return tuple(MISSING if i in still else next(it) for i in range(len(init_val)))

    def drop(c):
        return tuple(c[i] for i in keep)
    return keep, inject, drop


def _leaf_names(carry, names) -> list:
    """A readable name per leaf of the carry, from one name per element when given."""
    if names and isinstance(carry, tuple) and len(names) == len(carry):
        return [f"{n}_{p}" if p else n for n, c in zip(names, carry) for p in leaf_paths(c)]
    return leaf_paths(carry)


def _check_loop_pred(cond_body):
    if cond_body.out_tree.num_leaves != 1:
        raise ControlFlowError("the loop condition must return one scalar")
    pred = cond_body.outs[0]
    if _aval(pred).shape != ():
        raise ControlFlowError(
            f"the loop condition is an array of shape {_aval(pred).shape}; it must be a scalar",
            hint="reduce it with jnp.any(...) or jnp.all(...)")
    if _aval(pred).dtype != np.bool_:
        from .core.bind import Builder, building
        builder = Builder()
        with building(builder):
            cond_body.outs = [bind("ne", pred, 0)]
        cond_body.eqns = cond_body.eqns + builder.eqns


def _widened_carry(avals, tree, out_tree, outs, names) -> list:
    """The carry avals a loop needs, given what one pass of its body returned (`outs`, of
    structure `out_tree`): equal to `avals` when the body keeps every carry's type; a weakly
    typed carry (a Python 0 meeting floats) may widen; anything else is an error."""
    if out_tree != tree:
        raise ControlFlowError(
            f"the loop body returns the structure {out_tree} but carries {tree}",
            hint="return the same tuple/dict of values the loop starts with")
    return [_widened(name, a, _aval(out)) for name, a, out in zip(names, avals, outs)]


def _widened(name, a: AVal, b: AVal) -> AVal:
    if b.shape != a.shape:
        raise _carry_error(
            name, f"the loop changes the shape of {name!r} from {a.shape} to {b.shape}",
            "a value carried around a loop must keep its shape; pad it or use a fixed size")
    if b.dtype == a.dtype:
        return a
    dtype, _ = result_dtype(a, b)
    if not a.weak and dtype != a.dtype:
        raise _carry_error(
            name, f"the loop changes the dtype of {name!r} from {a.dtype} to {b.dtype}",
            f"convert it explicitly, e.g. .astype(jnp.{a.dtype.name})")
    return AVal(a.shape, dtype, a.weak and b.weak)


def _carry_error(name, message, hint) -> ControlFlowError:
    """An error about the carried value `name` (the front end points it at the assignment)."""
    error = ControlFlowError(message, hint=hint)
    error.carried = name
    return error


def _convert_to(x, aval: AVal):
    if isinstance(x, Var) and x.aval.dtype == aval.dtype:
        return x
    if not isinstance(x, Var) and not aval.weak:
        return bind("convert", x, dtype=aval.dtype.name)
    if isinstance(x, Var):
        return bind("convert", x, dtype=aval.dtype.name)
    return x


# ---------------------------------------------------------------- fori_loop / scan
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """(`unroll` is JAX's hint for XLA's loop; astjax's backends choose for themselves.)"""
    static = not isinstance(lower, Var) and not isinstance(upper, Var)
    if not _compiling():
        val = init_val
        for i in range(int(lower), int(upper)):
            val = body_fun(_eager_index(i), val)
        return _eager_results(val)
    if static:
        lower, upper = int(lower), int(upper)
        def step(carry, _):
            i, val = carry
            return (i + 1, body_fun(i, val)), None
        # the counter is a Python int (weakly typed): float32 * i stays float32, as in JAX
        (_, val), _ = scan(step, (lower, init_val), None, length=max(upper - lower, 0),
                           names=_parameter_names(body_fun))
        return val
    def loop_cond(carry):
        return carry[0] < upper
    def loop_body(carry):
        i, val = carry
        return i + 1, body_fun(i, val)
    start = lower if isinstance(lower, Var) else int(lower)
    return while_loop(loop_cond, loop_body, (start, init_val),
                      names=_parameter_names(body_fun))[1]


def _eager_index(i: int):
    """The index an eager fori_loop hands its body. Without x64, as in JAX, an int32 array.
    With x64 a Python int: JAX's index is then a weakly typed int64 array, which keeps
    float32 values float32; a Python int is weak under NumPy's rules too, an int64 array
    is not."""
    return i if x64_enabled() else as_array(np.int32(i))


def _parameter_names(fn):
    """The names the user gave a body's parameters (for the generated loop's names)."""
    names = getattr(fn, "parameter_names", None)
    return list(names) if names else None


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, names=None, x_names=None):
    x_leaves, x_tree = tree_flatten(xs)
    length = _scan_length(x_leaves, length)
    if not _compiling():
        return _scan_eager(f, init, xs, x_leaves, x_tree, length, reverse)
    init, still = _without_missing(init, lambda c, x: f(c, x)[0], xs)
    if still:
        keep, inject, drop = _static_positions(init, still)
        names = [names[i] for i in keep] if names else None
        carry, ys = scan(lambda c, x: _drop_carry(f(inject(c), x), drop), drop(init), xs,
                         length, reverse, unroll, names, x_names)
        return inject(carry), ys
    c_leaves, c_tree = tree_flatten(init)
    c_avals = _avals(c_leaves)
    x_avals = [AVal(a.shape[1:], a.dtype) for a in _avals(x_leaves)]
    x_paths = leaf_paths(xs)
    if x_names is None or len(x_names) != len(x_paths):
        x_names = [f"x_{p}" if p else "x" for p in x_paths]
    names = _leaf_names(init, names) + list(x_names)
    in_tree = tree_flatten((init, xs))[1]
    for _ in range(3):  # weakly typed carries may widen once, as in while_loop
        body = build_body(lambda c, x: f(c, x), in_tree, c_avals + x_avals, names)
        carry_tree, _ = _split_scan_tree(body.out_tree)
        widened = _widened_carry(c_avals, c_tree, carry_tree, body.outs, names)
        if widened == c_avals:
            _coerce_outs(body, c_avals)
            break
        c_avals = widened
    _, y_tree = _split_scan_tree(body.out_tree)
    init_atoms = [_convert_to(x, a) for x, a in zip(c_leaves, c_avals)]
    captured = free_vars(body.params, body.eqns, body.outs)
    body_f = close(_named("step"), [], body.eqns, body.outs, captured)
    body_f.params = body_f.params + body.params  # captured constants first, then carry and x
    outs = bind("scan", *captured, *init_atoms, *x_leaves, body=body_f,
                num_consts=len(captured), num_carry=len(init_atoms), length=length,
                reverse=bool(reverse))
    n = len(init_atoms)
    return tree_unflatten(c_tree, outs[:n]), tree_unflatten(y_tree, outs[n:])


def _drop_carry(result, drop):
    carry, y = result
    return drop(carry), y


def _split_scan_tree(out_tree):
    if out_tree.kind not in (tuple, list) or len(out_tree.children) != 2:
        raise ControlFlowError("a scan body must return a pair (carry, y)",
                               hint="return (new_carry, output) from the step function")
    return out_tree.children


def _scan_length(x_leaves, length):
    lengths = [np.shape(x)[0] for x in x_leaves] + ([length] if length is not None else [])
    if not lengths or any(n != lengths[0] for n in lengths[1:]):  # sizes may be symbolic: ==
        raise ControlFlowError(f"scan got inputs of different lengths {lengths}"
                               if lengths else "scan needs xs or length")
    return lengths[0] if isinstance(lengths[0], DimExpr) else int(lengths[0])


def _scan_eager(f, init, xs, x_leaves, x_tree, length, reverse):
    carry, ys = init, []
    steps = range(length - 1, -1, -1) if reverse else range(length)
    for t in steps:
        x = tree_unflatten(x_tree, [_eager_array(leaf[t]) for leaf in x_leaves]) \
            if x_leaves else None  # slices as arrays (0-d ones too), as JAX hands them
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    carry = _eager_results(carry)
    if not ys:
        return carry, None
    y_leaves = [tree_flatten(y)[0] for y in ys]
    stacked = [_eager_array(np.stack(col)) for col in zip(*y_leaves)]
    return carry, tree_unflatten(tree_flatten(ys[0])[1], stacked)


def _eager_array(value):
    return as_array(canonical_value(np.asarray(value)))


def _eager_results(tree):
    """An eager loop's result with its Python numbers as arrays (0-d, of their canonical
    dtype), as JAX returns them: a carry that never met an array has `.shape`, `.dtype` and
    `block_until_ready()` too."""
    leaves, treedef = tree_flatten(tree)
    return tree_unflatten(treedef, [_eager_array(x) if isinstance(x, (bool, int, float, complex))
                                    else x for x in leaves])
