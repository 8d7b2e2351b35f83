"""Typed keys (`random.key`): arrays whose elements are threefry keys, as JAX's `key<fry>`.

A `KeyArray` wraps its key data, a uint32 array of shape `keys.shape + (2,)`, and is a pytree
whose one leaf is that data: jit, vmap (over the key axes), scan and loop carries see uint32
arrays, and rebuild typed keys around the results. Raw keys (`PRNGKey`, uint32 arrays of shape
(2,)) stay what they are: every function of `astjax.random` takes both and returns the kind it
was given.
"""
import numpy as np

from ..dtypes import KEY_DTYPE
from ..tree_util import register_pytree_node

IMPL = "threefry2x32"


class KeyArray:
    """An array of typed keys. Indexing, iteration, `reshape` and `len` act on the key axes;
    `random.key_data` gives the uint32 data back."""
    __slots__ = ("_data",)
    dtype = KEY_DTYPE

    def __init__(self, data):
        if tuple(data.shape[-1:]) != (2,):
            raise TypeError(f"threefry key data has a trailing axis of 2, not shape "
                            f"{tuple(data.shape)}")
        self._data = data

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a single key (a 0-d key array)")
        return self.shape[0]

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        if Ellipsis not in index:
            index = index + (Ellipsis,)
        return KeyArray(self._data[index + (slice(None),)])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return KeyArray(self._data.reshape(tuple(shape) + (2,)))

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def __eq__(self, other):
        from .. import numpy as jnp
        return jnp.all(self._data == _data_of(other), axis=-1)

    def __ne__(self, other):
        return ~(self == other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"Array({self.shape}, dtype={KEY_DTYPE}) overlaying:\n{self._data!r}"


def _data_of(keys):
    return keys._data if isinstance(keys, KeyArray) else keys


register_pytree_node(KeyArray, lambda keys: ((keys._data,), None),
                     lambda _, children: KeyArray(children[0]))


def key_data(keys):
    """The uint32 data of typed keys (raw keys are returned as they are)."""
    return _data_of(keys)


def is_typed(keys) -> bool:
    return isinstance(keys, KeyArray)


def like(keys, data):
    """`data` as keys of the kind `keys` is: typed if it is typed, raw otherwise."""
    return KeyArray(data) if isinstance(keys, KeyArray) else data
