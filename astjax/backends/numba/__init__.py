"""The Numba backend: core form compiled to a generated module with one `@numba.njit` function.

The fusion plan (emit.py's docstring): elementwise work, reductions and index maps become
loop nests whose bodies call `vecmath` (so they vectorise), small values live in scalar
locals, control flow is inlined.  The pieces: `emit.py` (the plan and the rule tables),
`block.py` (the emitter), `nest.py` (loop nests), `values.py` (unrolled values, arrays,
views), `scalars.py` (typed scalar expressions), one module of rules per primitive kind, and
`runtime.py` (the njit helpers generated code calls).  The module is a real,
content-addressed file in `cache_root()/numba/`, so Numba's `cache=True` finds the machine
code again in a new process.

A function using a primitive without a Numba lowering is refused (TransformError naming the
primitive and suggesting backend="numpy") when it is compiled: no silent fallback, because a
user who asked for Numba wants to know where the time would go.  `missing()` lists those
primitives.

Calling convention (`compile_func`): the generated top-level function takes C-contiguous
arrays and, for 0-d parameters, scalars of the parameter's dtype; the returned callable makes
the inputs so and gives every 0-d result back as a NumPy scalar of its aval's dtype.
"""
import functools
import hashlib
import importlib.util
import io
import os
import sys
import tokenize

import numpy as np

# Numba's OpenMP thread pool spins while it waits by default: on a loaded machine (more busy
# threads than cores) every prange launch then costs milliseconds.  Passive waiting costs
# microseconds.  Read when the pool starts, so set before any parallel loop runs; a value
# the user set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import llvmlite  # noqa: E402
import numba  # noqa: E402
import numba.core.errors  # noqa: E402

from .cache_locator import ensure_locator  # noqa: E402  (first: before any cache=True)

from astjax.backends import numba_runtime_digest
from astjax.core.files import (cache_root, content_digest, discard, one_process_at_a_time,
                               write_if_changed)
from astjax.core.ir import Func, sub_funcs
from astjax.errors import TransformError

from astjax.core.primitives import import_kinds

from . import emit
from .blas_runtime import openblas_libraries
from .block import ModuleEmitter
from .llvm_options import INTERLEAVE, VECTOR_WIDTH, kernel_options

import_kinds(__name__)  # the lowerings, one module per primitive kind


def _single_threaded_blas() -> None:
    """Matrix products go to SciPy's OpenBLAS (blas_runtime's gemm, Numba's np.dot).  Its
    worker threads spin between calls and fight Numba's for the cores: on a loaded 2-core
    machine the bench MLP's gradient took 8-64 ms with them and 2.8 ms without (a large
    product is cut into one block per Numba thread instead).  So SciPy's OpenBLAS runs on one
    thread, unless the user chose a number with OPENBLAS_NUM_THREADS.  NumPy's own BLAS is
    left alone."""
    if "OPENBLAS_NUM_THREADS" in os.environ:
        return
    for lib in openblas_libraries():
        for name in ("scipy_openblas_set_num_threads", "openblas_set_num_threads"):
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)
                break


_single_threaded_blas()


def _fork_safe_threads() -> None:
    """Parallel loops run on TBB when it is installed (a dependency): it is safe with threads
    and with `fork` (GNU OpenMP, Numba's usual choice on Linux, kills a child forked after a
    parallel loop, as `multiprocessing` does). OpenMP, then the workqueue, are the fallbacks.
    A layer the user chose (NUMBA_THREADING_LAYER...) wins."""
    if "NUMBA_THREADING_LAYER" in os.environ or "NUMBA_THREADING_LAYER_PRIORITY" in os.environ:
        return
    numba.config.THREADING_LAYER_PRIORITY = ["tbb", "omp", "workqueue"]


_fork_safe_threads()


def _healing_cache() -> None:
    """A truncated, garbled or empty Numba index or data file (or a folder in its place) is a
    cache miss: the file is discarded with one warning and the kernel compiled and stored
    again. (Numba itself raises on such files, in every later process, until someone
    deletes them.)"""
    from numba.core.caching import IndexDataCacheFile
    if getattr(IndexDataCacheFile, "_astjax_heals", False):
        return
    load_index, load_data = IndexDataCacheFile._load_index, IndexDataCacheFile._load_data

    def heal_index(self):
        try:
            return load_index(self)
        except Exception as error:  # any failure to read it: it is not a cache
            _discard(self._index_path, error)
            return {}

    def heal_data(self, name):
        try:
            return load_data(self, name)
        except FileNotFoundError:
            raise
        except Exception as error:
            _discard(self._data_path(name), error)
            raise FileNotFoundError(self._data_path(name)) from None  # `load` reads: a miss

    IndexDataCacheFile._load_index, IndexDataCacheFile._load_data = heal_index, heal_data
    IndexDataCacheFile._astjax_heals = True


def _discard(path: str, error: Exception) -> None:
    import warnings
    discard(path)
    warnings.warn(f"astjax: discarded the unreadable Numba cache file {path} "
                  f"({type(error).__name__}); the kernel is compiled again", stacklevel=3)


_healing_cache()

# Generated code reads array sizes from its arguments (`x_dim0 = x.shape[0]`): one compiled
# kernel serves every length. A decision the emitter takes on a size (a small value unrolled
# into scalars, a matrix product small enough to inline) is recorded as a fact of the entry.
SYMBOLIC_SIZES = True

HEADER = ("# Generated by astjax (Numba backend) from {origin}. Edits are overwritten.\n"
          "import numba\n"
          "import numpy as np\n\n"
          "from astjax.backends.numba import runtime as rt\n"
          "from astjax.backends import vecmath\n\n\n")


def module_source(func: Func, origin: str) -> tuple:
    """(text of the generated module, {constant name: array})."""
    check_lowerings(func)
    module = ModuleEmitter(func)
    module.function(func)
    return HEADER.format(origin=origin) + _direct_allocations(module.text()), module.consts


_ALLOCATIONS = {"empty", "full", "zeros"}


def _direct_allocations(text: str) -> str:
    """`np.empty(` -> `rt.empty(` (and full, zeros) in the code, not in the comments that
    quote the user's lines: runtime's versions are lowered straight to an allocation, where
    Numba's overloads compile a function of their own per rank and dtype in each process.
    (The emitters write NumPy's names, which the CUDA backend reads.)"""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    spots = [t.start for t, dot, name, paren in zip(tokens, tokens[1:], tokens[2:], tokens[3:])
             if t.string == "np" and dot.string == "." and name.string in _ALLOCATIONS
             and paren.string == "(" and t.end == dot.start and dot.end == name.start]
    lines = text.splitlines(keepends=True)
    for row, col in spots:
        line = lines[row - 1]
        lines[row - 1] = line[:col] + "rt" + line[col + 2:]
    return "".join(lines)


def missing() -> list:
    """The primitives with no Numba lowering yet."""
    return emit.SCALAR.missing() + emit.LOWER.missing()


def check_lowerings(func: Func) -> None:
    """Refuse, before generating anything, a function using a primitive Numba cannot run or a
    dtype it has no arithmetic for (float16)."""
    _no_half_floats(func.params, func.loc)
    for eqn in func.eqns:
        if not emit.has_lowering(eqn.prim):
            raise TransformError(
                f"the numba backend has no lowering for lax.{eqn.prim}", loc=eqn.loc,
                hint='compile this function with jit(..., backend="numpy")')
        _no_half_floats(eqn.outs, eqn.loc)
        for sub in compiled_sub_funcs(eqn):
            check_lowerings(sub)


def _no_half_floats(values, loc) -> None:
    for v in values:
        if getattr(v, "aval", None) is not None and v.aval.dtype == np.float16:
            raise TransformError("the numba backend has no float16 arithmetic", loc=loc,
                                 hint="convert to float32 first (x.astype(jnp.float32)), or use "
                                      'backend="xla" or "numpy"')


def compiled_sub_funcs(eqn):
    """The nested Funcs a lowering compiles (a custom_jvp's rule is never run, only its fun)."""
    if "fun" in eqn.params:
        return [eqn.params["fun"]]
    return list(sub_funcs(eqn))


def compile_func(func: Func, origin: str = "?"):
    """A Python callable running `func` through its generated, Numba-compiled module."""
    return load(generate(func, origin), func)


class Generated:
    """A generated module on disk: its path, the name it is imported under, its constants
    and the name of its kernel (what a process needs to compile or run it)."""

    def __init__(self, path: str, import_name: str, consts: dict, kernel_name: str):
        self.path, self.import_name = path, import_name
        self.consts, self.kernel_name = consts, kernel_name

    def kernel(self):
        """The `@njit` dispatcher (importing the module compiles nothing yet)."""
        return getattr(_load(self.path, self.import_name, self.consts), self.kernel_name)


def generate(func: Func, origin: str = "?") -> Generated:
    """Write `func`'s module (content-addressed: an unchanged function keeps its file, and so
    Numba's cached machine code)."""
    source, consts = module_source(func, origin)
    digest = _digest(source, consts)
    path = os.path.join(cache_root(), "numba", f"{func.name}_{digest}.py")
    write_if_changed(path, source)
    return Generated(path, f"astjax_numba.{func.name}_{digest}", consts, func.name)


def load(generated: Generated, func: Func):
    """The calling convention (see the module docstring) around the generated kernel."""
    return _entry(generated.kernel(), func, generated.path)


def kernel_signature(func: Func, args) -> tuple:
    """The Numba types the kernel is compiled for, for these arguments (what `_entry` passes):
    every array read-only, whatever these ones are (see `_canonical`)."""
    return _canonical(numba.typeof(_argument_converter(v.aval)(a))
                      for a, v in zip(args, func.params))


def _canonical(types) -> tuple:
    """The types with every array read-only. One such overload takes writable arrays too (a
    safe conversion, once compiling is off): an XLA result is read-only, a NumPy array not,
    and a kernel compiled for one kind was compiled again, holding the GIL, for the other
    (3 s in the middle of JAX's mnist_classifier example, where the auto tier switched)."""
    return tuple(t.copy(readonly=True) if isinstance(t, numba.types.Array) else t
                 for t in types)


def _runtime_fingerprint() -> str:
    return hashlib.sha256(f"numba {numba.__version__} llvmlite {llvmlite.__version__} "
                          f"interleave {INTERLEAVE} vector width {VECTOR_WIDTH} "
                          f"runtime {numba_runtime_digest()}"
                          .encode()).hexdigest()


# Part of every generated file's name: a new vecmath (a fix, a faster path) or a new Numba
# means new files, so no process runs machine code cached from the old ones.
RUNTIME_FINGERPRINT = _runtime_fingerprint()


def _digest(source: str, consts: dict) -> str:
    """Names the file by everything the compiled code depends on: its source, its constants
    (Numba freezes them) and the runtime it inlines."""
    return content_digest(source, consts, RUNTIME_FINGERPRINT)[:20]


def _entry(kernel, func: Func, path: str):
    """The calling convention around the kernel (see the module docstring). Its first call
    compiles it with the module's file locked (and then runs it, unlocked: its collectives
    wait for the other ranks): processes compiling the same kernel at once (MPI's ranks, a
    pool's workers) wait for the first, then load its machine code from Numba's cache."""
    in_avals, out_avals = func.in_avals, func.out_avals
    convert = [_argument_converter(aval) for aval in in_avals]
    overloads = kernel.overloads
    one_array = len(out_avals) == 1 and out_avals[0].shape != ()

    def call(*args):
        ready = [c(a) for c, a in zip(convert, args)]
        try:
            if overloads:  # (a dict: cheaper to ask than .signatures)
                result = kernel(*ready)
            else:  # compiled (or loaded from the cache) at the first call, then run
                with one_process_at_a_time(path), kernel_options():  # (not the run: it may
                    if not overloads:  # (wait on a rank; another thread may have done it)
                        kernel.compile(_canonical(numba.typeof(a) for a in ready))
                        kernel.disable_compile()  # (arrays of either kind take the overload)
                result = kernel(*ready)
        except numba.core.errors.NumbaError as err:
            raise _compile_error(func, err) from None
        if one_array:
            return result
        outs = result if len(out_avals) != 1 else (result,)
        outs = tuple(_result(v, aval) for v, aval in zip(outs, out_avals))
        return outs[0] if len(out_avals) == 1 else outs

    call.kernel = kernel
    call.__name__ = func.name
    return call


def _compile_error(func: Func, err) -> TransformError:
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return TransformError(f"the Numba backend could not compile {func.name}: {first}",
                          func.loc, hint='run it with backend="numpy" (and please report it)')


def _argument_converter(aval):
    """The argument as the kernel was compiled for it: a scalar of its dtype, or a
    C-contiguous array of it (an array as it is when it already is one)."""
    if aval.shape == ():
        return aval.dtype.type
    return functools.partial(np.ascontiguousarray, dtype=aval.dtype)


def _result(value, aval):
    if aval.shape == ():
        return aval.dtype.type(value)
    return value



def _load(path: str, name: str, consts: dict):
    """Import the generated file; its constants are set before any function compiles."""
    if name in sys.modules:
        return sys.modules[name]
    ensure_locator(path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(consts)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module
