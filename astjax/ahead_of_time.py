"""Compiling a transformation ahead of time from a signature: the code `astjax transform` writes.

`compile_ahead(...)` specialises the transformed function to the signature's dtypes and ranks,
with its named sizes symbolic, and returns the source of two functions: the generated core form
(`grad_cross_entropy(w, b, x, labels)`, reading its sizes from its arguments) and, under the name
the input bound, a function that checks its arguments against the signature and calls it.

A program that needs a named size's value (an unrolled `range(n)`, a reshape by it) cannot be
compiled for every size: that is an AheadOfTimeError naming the line, and the caller compiles
the function at its first call instead.
"""
import ast
import re
from dataclasses import dataclass

import numpy as np

from .batching import vmap
from .core.avals import AVal, aval_of
from .core.dims import DimExpr, Facts, Symbol, recording
from .core.ir import Var
from .core.printer import print_func
from .errors import AstjaxError
from .frontend.specialize import specialize_abstract
from .config import default_dtype
from .signatures import SCALARS, ArgSpec, Signature
from .transforms import grad, hessian, jacfwd, jacrev, value_and_grad

TRANSFORMATIONS = {"grad": grad, "value_and_grad": value_and_grad, "vmap": vmap,
                   "jacfwd": jacfwd, "jacrev": jacrev, "hessian": hessian}
# Stand-ins for named sizes while compiling: distinct, and unlike the sizes programs test.
WITNESSES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79)


class AheadOfTimeError(AstjaxError):
    """This transformation cannot be compiled for its signature ahead of time."""


@dataclass
class Ahead:
    name: str          # the name the input binds
    source: str        # the generated functions
    facts: list        # what the code assumes of the named sizes, as text


def compile_ahead(function, steps, signature: Signature, name: str, label: str,
                  lax: str = "lax", np_name: str = "np", taken: set = frozenset(),
                  backend: str = "numpy") -> Ahead:
    """`steps`: the transformations (kind, option texts), outermost first, applied to
    `function` (an interpretable user function); `label` describes it in comments. `taken`:
    module-level names the generated core function must not shadow (it joins them).
    `backend`: "numpy" (core form as NumPy source) or "numba" (an `@numba.njit(cache=True)`
    kernel of the Numba backend)."""
    transformed = _apply(function, steps)
    signature = batched_signature(signature, steps)
    params, symbols = abstract_params(signature)
    facts = Facts(choices=False)  # one code for every size: its choices by size class stand
    with recording(facts):
        spec = specialize_abstract(transformed, params)
        if spec.implicit:
            raise AheadOfTimeError(f"{label} reads the global array {spec.implicit[0][1]!r}, "
                                   "whose value exists only when the module runs")
        if spec.out_static:
            raise AheadOfTimeError(f"{label} returns values that are not arrays")
        core_name = _free_name(spec.func.name, taken | {name})
        spec.func.name = core_name
        if backend == "numba":
            body, consts = _numba_kernel(spec.func, core_name, np_name, taken)
        else:
            body, consts = print_func(spec.func, lax=lax, np=np_name,
                                      const_prefix=f"_{core_name}_c")
    checks = [_check(f, symbols) for f in facts.items]
    taken.add(core_name)
    return Ahead(name, _module_text(name, core_name, body, consts, spec, signature, label,
                                    checks, np_name, backend), [text for text, _ in checks])


# What a Numba kernel's code refers to besides NumPy (the names the Numba backend writes).
NUMBA_IMPORTS = ("import math", "import numba", "from astjax.backends.numba import runtime as rt",
                 "from astjax.backends import vecmath")


def _numba_kernel(func, core_name: str, np_name: str, taken) -> tuple:
    """(source of the kernel with the imports it needs, {constant name: array})."""
    from .backends.numba import check_lowerings
    from .backends.numba.block import ModuleEmitter
    clash = {"rt", "vecmath"} & set(taken)
    if np_name != "np" or clash:
        raise AheadOfTimeError(f"the module binds {', '.join(sorted(clash)) or 'np'} to something "
                               "else, which a Numba kernel's code refers to")
    check_lowerings(func)
    module = ModuleEmitter(func)
    module.function(func)
    text = re.sub(r"\b_c(\d+)\b", rf"_{core_name}_c\1", module.text())
    consts = {f"_{core_name}{k}" if k.startswith("_c") else k: v
              for k, v in module.consts.items()}
    return "\n".join(NUMBA_IMPORTS) + "\n\n\n" + text, consts


def _free_name(wanted: str, taken) -> str:
    """`wanted`, else `wanted_core`, else `wanted_core2`, ...: never a name in `taken`."""
    if wanted not in taken:
        return wanted
    candidates = (f"{wanted}_core{k or ''}" for k in range(len(taken) + 2))
    return next(c for c in candidates if c not in taken)


def abstract_params(signature: Signature) -> tuple:
    """(a Var per argument, {size name: Symbol}); a named size is one symbol everywhere."""
    symbols, params = {}, []
    for i, spec in enumerate(signature.args):
        if spec.dtype in SCALARS:
            aval = aval_of({"float": 1.0, "int": 1, "bool": True}[spec.dtype])
        else:
            shape = []
            for axis, d in enumerate(spec.dims):
                if isinstance(d, str):
                    if d not in symbols:
                        if len(symbols) == len(WITNESSES):
                            raise AheadOfTimeError("too many named sizes in one signature")
                        symbols[d] = Symbol(d, d, WITNESSES[len(symbols)], (i, axis))
                    d = DimExpr.of(symbols[d])
                shape.append(d)
            aval = AVal(tuple(shape), np.dtype(spec.dtype))
        params.append(Var(aval, spec.name))
    return params, symbols


def batched_signature(signature: Signature, steps) -> Signature:
    """The signature of the transformed function: each vmap (innermost first) adds a named
    batch size to every argument it maps, at its `in_axes` position. (A signature describes
    the function as the user wrote it.)"""
    for kind, options in reversed(steps):
        if kind != "vmap":
            continue
        args, kwargs = _options(kind, options)
        in_axes = kwargs.get("in_axes", args[0] if args else 0)
        used = signature.size_names
        name = next(n for n in (f"batch{k or ''}" for k in range(len(used) + 2)) if n not in used)
        specs = []
        for i, spec in enumerate(signature.args):
            axis = in_axes if not isinstance(in_axes, (tuple, list)) else in_axes[i]
            if axis is None:
                specs.append(spec)
                continue
            if not isinstance(axis, int):
                raise AheadOfTimeError(f"vmap(in_axes={in_axes!r}): only int or None axes per "
                                       "argument can be written ahead of time")
            dtype = spec.dtype  # a batched Python scalar is an array of its default dtype
            if dtype in SCALARS:
                dtype = "bool" if dtype == "bool" else default_dtype(dtype).name
            dims = list(spec.dims)
            dims.insert(axis if axis >= 0 else len(dims) + 1 + axis, name)
            specs.append(ArgSpec(spec.name, dtype, tuple(dims)))
        signature = Signature(signature.function, tuple(specs), signature.origin)
    return signature


def _apply(function, steps):
    for kind, options in reversed(steps):
        args, kwargs = _options(kind, options)
        if kind == "jit":
            if args or kwargs:
                raise AheadOfTimeError(f"jit({', '.join(options)}): static arguments need their "
                                       "values, known only at a call")
            continue
        if kind not in TRANSFORMATIONS:
            raise AheadOfTimeError(f"{kind} cannot be compiled ahead of time yet")
        function = TRANSFORMATIONS[kind](function, *args, **kwargs)
    return function


def _options(kind, options) -> tuple:
    """The option texts (`argnums=1`, `(None, 0)`) as Python values."""
    try:
        call = ast.parse(f"f({', '.join(options)})", mode="eval").body
        args = [ast.literal_eval(a) for a in call.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, SyntaxError):
        raise AheadOfTimeError(f"the options of {kind}({', '.join(options)}) are not literals")
    return args, kwargs


def _check(fact, symbols) -> tuple:
    """(description, Python predicate over the size names) of a fact the code relies on; an
    AheadOfTimeError when the fact pins a named size to its stand-in value."""
    names = {s: s.code for s in symbols.values()}
    expr = fact.expr
    if fact.op == "==" and fact.holds and len(expr.symbols()) == 1:
        where = f"{fact.where.file}:{fact.where.line}: " if fact.where else ""
        raise AheadOfTimeError(f"{where}the code needs the value of the size "
                               f"{expr.symbols().pop().name}, not known ahead of time",
                               hint="give it as a number in the signature, or let this function "
                                    "compile at its first call")
    op = {"==": "==", "<": "<", "<=": "<="}[fact.op]
    test = f"{expr.code(names)} {op} 0"
    predicate = test if fact.holds else f"not ({test})"
    return str(fact), predicate


def _module_text(name, core_name, body, consts, spec, signature, label, checks, np_name,
                 backend="numpy") -> str:
    params = ", ".join(a.name for a in signature.args)
    lines = [f"# {label}, compiled ahead of time for {signature}"]
    if checks:
        lines.append(f"# for sizes with {', and '.join(text for text, _ in checks)}")
    for const, value in consts.items():
        lines.append(f"{const} = {np_name}.array({value.tolist()!r}, {np_name}.{value.dtype.name})")
    lines.append(body.rstrip())
    one = "," if len(signature.args) == 1 else ""
    specs = "".join(f"\n            ({a.name!r}, {a.dtype!r}, {tuple(a.dims)!r})," for a in signature.args)
    sizes = ", ".join(signature.size_names)
    facts = "".join(f"\n            ({text!r}, lambda {sizes + ', ' if sizes else ''}**_: {test}),"
                    for text, test in checks)
    lines += ["", "", f"def {name}({params}):",
              f'    """{label}: checks the arguments against the signature, then runs',
              f'    {core_name}."""',
              f"    {params}{one} = check_arguments(",
              f"        {name!r}, ({params}{one}),",
              f"        specs=({specs}),",
              f"        facts=({facts}){', contiguous=True' if backend == 'numba' else ''})",
              f"    return {_returned(core_name, params, spec.out_tree, len(spec.func.outs))}"]
    return "\n".join(lines) + "\n"


def _returned(core_name, params, out_tree, n_outs) -> str:
    call = f"{core_name}({params})"
    if out_tree.kind is None:
        return call
    if n_outs == 1:  # the core form returns a lone output bare
        call = f"({call},)"
    if out_tree.kind is tuple and all(c.kind is None for c in out_tree.children):
        return call  # the core form returns a flat tuple already
    return _rebuild(call, out_tree)


def _rebuild(call: str, out_tree) -> str:
    """An expression giving the output's structure back from the core form's flat tuple."""
    counter = iter(range(10 ** 6))

    def build(tree) -> str:
        if tree.kind is None:
            return f"_flat[{next(counter)}]"
        inner = [build(c) for c in tree.children]
        if tree.kind is tuple:
            return f"({', '.join(inner)}{',' if len(inner) == 1 else ''})"
        if tree.kind is list:
            return f"[{', '.join(inner)}]"
        if tree.kind is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(tree.aux, inner)) + "}"
        raise AheadOfTimeError(f"an output of type {tree.kind.__name__} cannot be written ahead "
                               "of time yet")
    return f"(lambda _flat: {build(out_tree)})({call})"
