"""`jax.config.update(...)` as JAX programs call it.

`jax_enable_x64` chooses the dtypes. On (astjax's default, set `JAX_ENABLE_X64=0` to change
it) values keep NumPy's dtypes: a Python float or `jnp.ones(3)` is float64. Off (JAX's
default), no value is 64 bits wide: arguments, constants, creation functions and promotion
give the 32-bit dtypes JAX gives (`core.avals.canonical_dtype` reads the flag).
`jax_disable_jit` (or the `disable_jit()` context) makes `jit`-compiled functions run as plain
Python on concrete arrays. Other flags are recorded and have no effect."""
import contextlib
import os
import warnings


def _env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    return default


_FLAGS: dict = {"jax_enable_x64": _env_flag("JAX_ENABLE_X64", True), "jax_disable_jit": False,
                "jax_debug_nans": False}
_KNOWN = {"jax_enable_x64", "jax_platform_name", "jax_platforms", "jax_debug_nans",
          "jax_default_matmul_precision", "jax_disable_jit",
          # JAX's persistent compilation cache: astjax keeps its compiled code on disk always
          "jax_compilation_cache_dir", "jax_persistent_cache_min_entry_size_bytes",
          "jax_persistent_cache_min_compile_time_secs",
          "jax_persistent_cache_enable_xla_caches"}


def update(name: str, value) -> None:
    if name not in _KNOWN:
        warnings.warn(f"astjax ignores the JAX flag {name!r}", stacklevel=2)
    _FLAGS[name] = value


def read(name: str):
    return _FLAGS.get(name)


def __getattr__(name: str):
    """A flag's value as an attribute, as JAX's config gives it (`jax.config.jax_enable_x64`)."""
    if name in _FLAGS or name in _KNOWN:
        return _FLAGS.get(name)
    raise AttributeError(f"astjax.config has no flag {name!r}")


def x64_enabled() -> bool:
    return bool(_FLAGS["jax_enable_x64"])


@contextlib.contextmanager
def enable_x64(enabled: bool = True):
    """Within the block, `jax_enable_x64` is `enabled` (what `jax.enable_x64` does)."""
    outer = x64_enabled()
    update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        update("jax_enable_x64", outer)


@contextlib.contextmanager
def default_matmul_precision(precision):
    """Within the block, `jax_default_matmul_precision` is `precision` (astjax computes
    products at the operands' own precision on the CPU whatever it says)."""
    outer = read("jax_default_matmul_precision")
    update("jax_default_matmul_precision", precision)
    try:
        yield
    finally:
        update("jax_default_matmul_precision", outer)


@contextlib.contextmanager
def named_scope(name: str):
    """JAX's name for the operations inside (for profiles and the compiled module's metadata);
    astjax's generated code is named by the user's own lines, so the block runs as it is."""
    if not isinstance(name, str):
        raise TypeError(f"named_scope takes a str name, not {type(name).__name__}")
    yield


def default_dtype(kind: str):
    """The dtype a value of `kind` ("float", "int", "uint", "complex") gets when nothing else
    decides it (creation functions, random sampling): 64-bit with jax_enable_x64, else 32."""
    import numpy as np
    wide = x64_enabled()
    names = {"float": ("float64", "float32"), "int": ("int64", "int32"),
             "uint": ("uint64", "uint32"), "complex": ("complex128", "complex64")}
    return np.dtype(names[kind][0 if wide else 1])


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within the block, jit-compiled functions run as plain Python (for debugging)."""
    outer = _FLAGS.get("jax_disable_jit")
    _FLAGS["jax_disable_jit"] = disable
    try:
        yield
    finally:
        _FLAGS["jax_disable_jit"] = outer


def ensure_compile_time_eval():
    """A block whose values are computed while compiling: astjax already computes every value
    that does not depend on the arguments at compile time, so this changes nothing."""
    return contextlib.nullcontext()
