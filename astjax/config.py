"""`jax.config.update(...)` as JAX programs call it.

astjax follows NumPy's dtypes (float64 stays float64), so `jax_enable_x64` needs no switch:
setting it is accepted and recorded. `jax_disable_jit` (or the `disable_jit()` context) makes
`jit`-compiled functions run as plain Python on concrete arrays. Other flags are recorded and
have no effect."""
import contextlib
import warnings

_FLAGS: dict = {"jax_enable_x64": True}
_KNOWN = {"jax_enable_x64", "jax_platform_name", "jax_platforms", "jax_debug_nans",
          "jax_default_matmul_precision", "jax_disable_jit"}


def update(name: str, value) -> None:
    if name not in _KNOWN:
        warnings.warn(f"astjax ignores the JAX flag {name!r}", stacklevel=2)
    _FLAGS[name] = value


def read(name: str):
    return _FLAGS.get(name)


def x64_enabled() -> bool:
    return bool(_FLAGS.get("jax_enable_x64"))


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
