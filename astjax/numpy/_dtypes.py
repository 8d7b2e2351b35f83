"""Dtypes as JAX spells them: `jnp.float32` is both a dtype (`np.dtype(jnp.float32)`,
`zeros(3, jnp.float32)`) and a converter (`jnp.float32(x)`, which works on abstract arrays too).
Dtype queries (`finfo`, `can_cast`, ...) are NumPy's own; `result_type` and `promote_types`
follow JAX's promotion (an integer array meeting a float32 one gives float32)."""
import builtins

import numpy as np

from .. import dtypes as _jax_dtypes
from ..core import avals as _avals
from ._creation import asarray
from ._util import aval as _aval


class _ScalarMeta(type):
    """A scalar type whose call converts: jnp.float32(x) == asarray(x, float32)."""

    def __call__(cls, x=0):
        return asarray(x, cls.dtype)

    def __eq__(cls, other):
        return cls is other or np.dtype(cls.dtype) == other

    def __hash__(cls):
        return hash(cls.dtype)

    def __repr__(cls):
        return f"astjax.numpy.{cls.__name__}"


def _scalar_type(name: str, np_type) -> type:
    return _ScalarMeta(name, (), {"dtype": np.dtype(np_type), "__module__": __name__})


bool_ = _scalar_type("bool_", np.bool_)
int8, int16, int32, int64 = (_scalar_type(t.__name__, t) for t in
                             (np.int8, np.int16, np.int32, np.int64))
uint8, uint16, uint32, uint64 = (_scalar_type(t.__name__, t) for t in
                                 (np.uint8, np.uint16, np.uint32, np.uint64))
float16, float32, float64 = (_scalar_type(t.__name__, t) for t in
                             (np.float16, np.float32, np.float64))
complex64, complex128 = _scalar_type("complex64", np.complex64), _scalar_type("complex128",
                                                                              np.complex128)
int_, uint, float_, complex_ = int64, uint64, float64, complex128
single, double, csingle, cdouble = float32, float64, complex64, complex128


def _narrow_floats():
    """ml_dtypes (JAX's dependency for its narrow floats: NumPy arrays of bfloat16 come from
    it), or None. Imported when first asked for: its import takes half a second (ml_dtypes
    0.7), most of `import astjax`, and a process that runs no XLA (a Numba kernel's compile,
    a pinned backend) never needs it. Where XLA is the default, astjax.preload imports it."""
    try:
        import ml_dtypes
    except ImportError:  # pragma: no cover
        return None
    return ml_dtypes


def __getattr__(name: str):
    narrow = _narrow_floats() if name == "bfloat16" else None
    if narrow is not None:
        globals()["bfloat16"] = made = _scalar_type("bfloat16", narrow.bfloat16)
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


dtype = np.dtype


def promote_types(a, b) -> np.dtype:
    return _avals.promote_types(np.dtype(a), np.dtype(b))


def result_type(*args) -> np.dtype:
    """The dtype an elementwise operation on `args` (arrays, dtypes, Python scalars) gives."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    avals = [_avals.AVal((), np.dtype(a)) if _is_dtype_like(a) else _aval(a) for a in args]
    return _avals.canonical_dtype(_avals.result_dtype(*avals)[0])


def _is_dtype_like(x) -> bool:
    if isinstance(x, (np.dtype, str, _ScalarMeta)) or \
            (isinstance(x, type) and issubclass(x, np.generic)):
        return True
    return x in (float, int, complex, builtins.bool) if isinstance(x, type) else False


can_cast = np.can_cast


def finfo(dtype):
    """NumPy's finfo, and ml_dtypes' for its narrow floats (bfloat16, float8_*)."""
    try:
        return np.finfo(dtype)
    except (TypeError, ValueError):
        narrow = _narrow_floats()
        if narrow is None:
            raise
        return narrow.finfo(np.dtype(getattr(dtype, "dtype", dtype)))


iinfo = np.iinfo
issubdtype = _jax_dtypes.issubdtype
isdtype = getattr(np, "isdtype", None)
generic, number, inexact, floating, complexfloating = (np.generic, np.number, np.inexact,
                                                       np.floating, np.complexfloating)
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger

bool = bool_  # noqa: A001  (the array API's name, jnp.bool; last: the module's code above
#                           means Python's bool)

__all__ = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128", "int_", "uint", "float_",
           "complex_", "single", "double", "csingle", "cdouble", "bool", "dtype", "result_type",
           "promote_types", "can_cast",
           "finfo", "iinfo", "issubdtype", "isdtype", "generic", "number", "inexact", "floating",
           "complexfloating", "integer", "signedinteger", "unsignedinteger"]
# (bfloat16 too, from __getattr__: astjax.numpy's own __getattr__ hands it on)
