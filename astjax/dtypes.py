"""`jax.dtypes`: the dtype helpers JAX programs call, and the element type of typed keys.

`prng_key` is the kind of typed keys' dtype (`issubdtype(keys.dtype, dtypes.prng_key)`);
`float0` is the dtype JAX gives the tangents of integer values. The rest is NumPy's, with
`canonicalize_dtype` following the `jax_enable_x64` flag."""
import numpy as np

from .core.avals import canonical_dtype


class extended:
    """The kind of dtypes that are not NumPy's (typed keys)."""


class prng_key(extended):
    """The kind of typed keys' dtype."""


class KeyDtype:
    """The element type of typed keys, `key<fry>`."""
    name = "key<fry>"
    kind = "V"
    itemsize = 8
    type = prng_key

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyDtype)

    def __hash__(self) -> int:
        return hash(KeyDtype)


KEY_DTYPE = KeyDtype()
float0 = np.dtype([("float0", np.void, 0)])
finfo, iinfo, result_type = np.finfo, np.iinfo, np.result_type


def issubdtype(a, b) -> bool:
    """NumPy's issubdtype, knowing typed keys: their dtype is a `prng_key` and `extended`."""
    a_key = isinstance(a, KeyDtype) or a is prng_key
    b_kind = b if isinstance(b, type) and issubclass(b, extended) else None
    if a_key or b_kind is not None or isinstance(b, KeyDtype):
        return a_key and (b_kind is not None or isinstance(b, KeyDtype))
    return bool(np.issubdtype(a, b))


def canonicalize_dtype(dtype) -> np.dtype:
    """The dtype a value of `dtype` has in astjax: 64-bit types narrowed to 32 bits unless
    `jax_enable_x64` is on (the rule every value follows, `core.avals.canonical_dtype`)."""
    return canonical_dtype(dtype)


def scalar_type_of(x) -> type:
    """The Python scalar type of x's dtype (bool, int, float or complex)."""
    kind = np.dtype(getattr(x, "dtype", np.asarray(x).dtype)).kind
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[kind]


def itemsize_bits(dtype) -> int:
    return np.dtype(dtype).itemsize * 8
