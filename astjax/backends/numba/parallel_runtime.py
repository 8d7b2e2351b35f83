"""Parallel loops for generated kernels without Numba's parfors: `rt.parallel(body, n, args)`
runs `body(start, stop, *args)` over blocks of [0, n) on Numba's threading layer.

A kernel with `parallel=True` pays for parfors twice: their passes over the whole function
(Python, slow), and the loop body compiled as a gufunc of its own, optimised and turned into
machine code once alone and again inside the kernel. Softmax's kernel took 0.55-0.6 s to
compile so, 0.2 s without its parallel loop. Here the body is an ordinary function of the
generated module (`outline.py` writes it), compiled by this lowering straight into the
kernel's own code library: one optimisation and one machine code emission for the whole
kernel, 0.24-0.25 s for softmax, at the same speed.

The lowering mirrors what parfors emit for their launch: a wrapper in the gufunc kernel form
the threading layer calls (`void(char **args, intp *dims, intp *steps, void *data)`), handed
to `numba_parallel_for` with the GIL released. The wrapper reads the block it was given from
its `args` pointer (offset from a base by the block's start, one byte per position) and the
body's arguments from `data`. A body that raises stores its status there; the kernel raises
it after the loop.
"""
import itertools

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.callconv import excinfo_ptr_t
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import signature
from numba.extending import type_callable


def parallel(body, n, args):
    """Run `body(start, stop, *args)` over [0, n) (in generated code: in blocks, on threads;
    unjitted, in one call)."""
    body(0, n, *args)


@type_callable(parallel)
def _type_parallel(context):
    def typer(body, n, args):
        if isinstance(body, types.Dispatcher) and isinstance(n, types.Integer) \
                and isinstance(args, types.BaseTuple):
            return signature(types.none, body, n, args)
        return None
    return typer


_I8P = ir.IntType(8).as_pointer()
_CODE = ir.IntType(32)
_wrappers = itertools.count()


@lower_builtin(parallel, types.Dispatcher, types.Integer, types.BaseTuple)
def _lower_parallel(context, builder, sig, args):
    from numba.core.typed_passes import _reload_parfors
    _reload_parfors()  # (Numba's threads, and the symbols below; a cached kernel's reload too)
    context.active_code_library._reload_init.add(_reload_parfors)
    body_type, n_type, args_type = sig.args
    body = _compile_body(context, body_type.dispatcher.py_func,
                         (types.intp, types.intp) + tuple(args_type.types))
    data_type = ir.LiteralStructType([_I8P, _CODE, excinfo_ptr_t,
                                      context.get_value_type(args_type)])
    wrapper = _wrapper(context, builder.module, body, data_type, len(args_type.types))
    data = cgutils.alloca_once(builder, data_type)
    builder.store(_CODE(0), _field(builder, data, 1))
    builder.store(args[2], _field(builder, data, 3))
    n = context.cast(builder, args[1], n_type, types.intp)
    _launch(context, builder, wrapper, data, builder.select(
        builder.icmp_signed(">", n, n.type(0)), n, n.type(0)))  # (none below zero)
    code = builder.load(_field(builder, data, 1))
    with builder.if_then(builder.icmp_signed("!=", code, _CODE(0)), likely=False):
        status = context.call_conv._get_return_status(
            builder, code, builder.load(_field(builder, data, 2)))
        context.call_conv.return_status_propagate(builder, status)
    return context.get_dummy_value()


def _launch(context, builder, wrapper, data, n) -> None:
    """numba_parallel_for(wrapper) over n positions, with the GIL released, as parfors call
    it: one "array" of positions one byte apart from a base (the data's first field), so
    that a block's start is its pointer's distance from the base."""
    intp = context.get_value_type(types.intp)
    base = cgutils.alloca_once(builder, ir.IntType(8))
    builder.store(base, _field(builder, data, 0))
    positions = cgutils.alloca_once_value(builder, base)
    count = cgutils.alloca_once_value(builder, n)
    step = cgutils.alloca_once_value(builder, ir.Constant(intp, 1))
    module = builder.module
    threads = builder.call(cgutils.get_or_insert_function(
        module, ir.FunctionType(ir.IntType(types.intp.bitwidth), []), "get_num_threads"), [])
    run = cgutils.get_or_insert_function(
        module, ir.FunctionType(ir.VoidType(), [_I8P] * 5 + [intp] * 3), "numba_parallel_for")
    pyapi = context.get_python_api(builder)
    gil = pyapi.gil_ensure()
    released = pyapi.save_thread()
    builder.call(run, [builder.bitcast(wrapper, _I8P)] +
                 [builder.bitcast(p, _I8P) for p in (positions, count, step, data)] +
                 [ir.Constant(intp, 0), ir.Constant(intp, 1), threads])
    pyapi.restore_thread(released)
    pyapi.gil_release(gil)


def _compile_body(context, pyfunc, argtypes):
    """The body compiled into the kernel's own library, not finalised alone (see the module
    docstring), with the kernel's own flags (error model, fastmath, NRT) and no parfors."""
    from numba.core import compiler, targetconfig
    from numba.core.cpu import ParallelOptions
    kernel_flags = targetconfig.ConfigStack().top()
    flags = compiler.Flags()
    for name in ("nrt", "error_model", "fastmath", "boundscheck"):
        if kernel_flags.is_set(name):
            setattr(flags, name, getattr(kernel_flags, name))
    flags.no_compile = flags.no_cpython_wrapper = flags.no_cfunc_wrapper = True
    flags.auto_parallel = ParallelOptions(False)
    return compiler.compile_extra(context.typing_context, context, pyfunc, argtypes,
                                  types.none, flags, {}, library=context.active_code_library)


def _wrapper(context, module, body, data_type, nargs: int):
    """The gufunc-form function the threading layer calls on each block: body(start, stop,
    *args), its error status (if any) kept in the data."""
    intp = context.get_value_type(types.intp)
    fnty = ir.FunctionType(ir.VoidType(), [_I8P.as_pointer(), intp.as_pointer(),
                                           intp.as_pointer(), _I8P])
    wrapper = ir.Function(module, fnty, name=f"astjax.parallel.{next(_wrappers)}."
                                             f"{body.fndesc.mangled_name}")
    wrapper.linkage = "internal"
    builder = ir.IRBuilder(wrapper.append_basic_block("entry"))
    positions, counts, _, raw = wrapper.args
    data = builder.bitcast(raw, data_type.as_pointer())
    base = builder.load(_field(builder, data, 0))
    start = builder.sub(builder.ptrtoint(builder.load(positions), intp),
                        builder.ptrtoint(base, intp))
    stop = builder.add(start, builder.load(counts))
    values = builder.load(_field(builder, data, 3))
    callee = context.declare_function(module, body.fndesc)
    status, _ = context.call_conv.call_function(
        builder, callee, types.none, body.signature.args,
        [start, stop] + [builder.extract_value(values, i) for i in range(nargs)])
    with builder.if_then(status.is_error, likely=False):
        builder.store(status.code, _field(builder, data, 1))
        builder.store(status.excinfoptr, _field(builder, data, 2))
    builder.ret_void()
    return wrapper


def _field(builder, struct_ptr, index: int):
    return cgutils.gep_inbounds(builder, struct_ptr, 0, index)
