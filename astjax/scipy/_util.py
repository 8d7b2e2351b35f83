"""What astjax.scipy's modules share."""
import astjax.numpy as jnp

from ..numpy._util import inexact_type_of
from ..core.prims.elementwise import complex_dtype


def inexact(*xs):
    """The operands as arrays of their common inexact dtype (integers and bools compute in
    JAX's float for them, numpy/_util.inexact_type_of); one operand comes back alone, several
    as a list."""
    dtype = inexact_type_of(*xs)
    xs = [jnp.asarray(x) for x in xs]
    out = [x.astype(dtype) if x.dtype != dtype else x for x in xs]
    return out[0] if len(out) == 1 else out


def as_complex(x):
    """x in the complex dtype of its precision (complex64 for float32, else complex128)."""
    return x if x.dtype.kind == "c" else x.astype(complex_dtype(x.dtype))
