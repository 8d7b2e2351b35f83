"""Math functions with a cheap common path and a rare expensive one, as vector functions.

A scalar loop body cannot say "if every lane of this vector is ordinary, skip the slow
code": inline, branch-free code must compute both paths for every element.  So a function
whose slow path is rare (sin's Payne-Hanek reduction, needed only for huge arguments)
becomes a call to a module-level scalar function that names its vector versions in LLVM's
``vector-function-abi-variant`` attribute.  The loop vectoriser then calls the
``<16 x float>`` version once per 16 elements, and that version branches once per
vector: the fast path for all lanes, and only if some lane needs it, the full function
on the whole vector too (the way vector math libraries do it).

Both functions pass floats as same-width integers: Numba's fastmath pass flags every call
that returns a float with ``nnan``/``ninf``, which would let LLVM assume sin(inf) is not nan.
They are ``weak_odr``, so every Numba module can define them and the linker keeps one.
"""
from llvmlite import ir

from .ir import V, F32, F64, I32, I64, any_lane, select

# vector widths the loop vectoriser may ask for (SSE, AVX2, AVX-512)
LANES = {F32: (4, 8, 16), F64: (2, 4, 8)}


def call(builder, name, fty, full, fast, args):
    """Emit ``name(*args)`` (llvm float values of type fty) as a call with vector variants.

    full(*Vs) -> V: correct for every input (the slow path), branch-free.
    fast(*Vs) -> (V, slow): result and the mask of lanes where it may be wrong.  If
    fast.slow_lanes(*Vs) gives that mask from the arguments alone, it is tested first and a
    vector with a slow lane runs full alone, not fast as well.  If fast.ordinary(*Vs) gives
    (mask, unchecked), a vector whose lanes are all in the mask runs unchecked() alone: the
    same values as fast for those lanes, without fast's guards for the others (any other
    vector runs fast and full as before, so each lane's value never depends on its
    neighbours).
    """
    fn = _scalar_function(builder.module, name, fty, full, fast, len(args))
    ity = _int_of(fty)
    res = builder.call(fn, [builder.bitcast(a, ity) for a in args])
    return builder.bitcast(res, fty)


def _int_of(fty):
    return I32 if fty == F32 else I64


def _symbol(name, fty):
    return "astjax_vecmath_%s_%s" % (name, "f32" if fty == F32 else "f64")


def _scalar_function(mod, name, fty, full, fast, nargs):
    sym = _symbol(name, fty)
    fn = mod.globals.get(sym)
    if fn is not None:
        return fn
    ity = _int_of(fty)
    fn = _define(mod, sym, ity, nargs)
    variants = ",".join("_ZGV_LLVM_N%d%s_%s(%s_v%d)" % (n, "v" * nargs, sym, sym, n)
                        for n in LANES[fty])
    fn.attributes.add("noinline")  # inlined, the vectoriser would see no call to widen
    # llvmlite knows only built-in attribute names; string attributes print as given
    set.add(fn.attributes, '"vector-function-abi-variant"="%s"' % variants)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    xs = [V(b, b.bitcast(a, fty)) for a in fn.args]
    ordinary = _ordinary(fast, xs)
    if hasattr(fast, "slow_lanes"):
        _either(b, fast.slow_lanes(*xs), lambda: full(*xs).v, lambda: fast(*xs)[0].v, fty, ity)
    elif ordinary is not None:
        _either(b, ~ordinary[0], lambda: _checked(fast, xs, lambda: full(*xs)).v,
                lambda: ordinary[1]().v, fty, ity)
    else:
        _branch_on_slow(b, fast(*xs), lambda: full(*xs).v, fty, ity)
    for n in LANES[fty]:
        _vector_function(mod, sym, fty, n, full, fast, nargs)
    return fn


def _vector_function(mod, sym, fty, n, full, fast, nargs):
    vty, ity = ir.VectorType(fty, n), ir.VectorType(_int_of(fty), n)
    fn = _define(mod, "%s_v%d" % (sym, n), ity, nargs)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    xs = [V(b, b.bitcast(a, vty)) for a in fn.args]
    # the full function on the whole vector, kept where a lane needed it: branch-free vector
    # code, so data where every vector has such a lane (pow of negative numbers) stays fast.
    # It is a function of its own, called cold: inline, its constants and temporaries would
    # share one register allocation with the fast path and spill on every call.
    slow_fn = _slow_function(mod, "%s_v%d_full" % (sym, n), vty, ity, full, nargs)
    ordinary = _ordinary(fast, xs)
    if ordinary is not None:
        _either(b, any_lane(~ordinary[0]),
                lambda: _checked(fast, xs, lambda: V(b, _call_ints(b, slow_fn, xs, vty))).v,
                lambda: ordinary[1]().v, vty, ity)
        return
    if hasattr(fast, "slow_lanes"):
        _either(b, any_lane(fast.slow_lanes(*xs)), lambda: _call_ints(b, slow_fn, xs, vty),
                lambda: fast(*xs)[0].v, vty, ity)
        return
    res, slow = fast(*xs)
    _branch_on_slow(b, (res, any_lane(slow)),
                    lambda: select(slow, V(b, _call_ints(b, slow_fn, xs, vty)), res).v, vty, ity)


def _ordinary(fast, xs):
    return fast.ordinary(*xs) if hasattr(fast, "ordinary") else None


def _checked(fast, xs, full):
    """fast's result where it is right, full()'s in the other lanes."""
    res, slow = fast(*xs)
    return select(slow, full(), res)


def _slow_function(mod, sym, vty, ity, full, nargs):
    fn = _define(mod, sym, ity, nargs)
    fn.attributes.add("noinline")
    fn.attributes.add("cold")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.ret(b.bitcast(full(*[V(b, b.bitcast(a, vty)) for a in fn.args]).v, ity))
    return fn


def _call_ints(b, fn, xs, vty):
    ity = fn.function_type.return_type
    return b.bitcast(b.call(fn, [b.bitcast(x.v, ity) for x in xs]), vty)


def _define(mod, sym, ity, nargs):
    fn = ir.Function(mod, ir.FunctionType(ity, [ity] * nargs), sym)
    fn.linkage = "weak_odr"  # kept even before its first call appears; one copy after linking
    fn.attributes.add("nounwind")
    fn.attributes.add("readnone")
    return fn


def _either(b, flag, slow, fast, fty, ity):
    """ret (slow() if the i1 flag is set else fast()), as integer bits: one of the two runs."""
    with b.if_else(flag.v, likely=False) as (then, otherwise):
        with then:
            slow_value, slow_block = slow(), b.block
        with otherwise:
            fast_value, fast_block = fast(), b.block
    out = b.phi(fty)
    out.add_incoming(slow_value, slow_block)
    out.add_incoming(fast_value, fast_block)
    b.ret(b.bitcast(out, ity))


def _branch_on_slow(b, fast_result, slow, fty, ity):
    """ret (slow() if the i1 flag is set else the fast result), as integer bits."""
    res, flag = fast_result
    fast_block = b.block
    with b.if_then(flag.v, likely=False):
        slow_value = slow()
        slow_block = b.block
    out = b.phi(fty)
    out.add_incoming(res.v, fast_block)
    out.add_incoming(slow_value, slow_block)
    b.ret(b.bitcast(out, ity))
