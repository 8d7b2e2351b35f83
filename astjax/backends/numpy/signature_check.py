"""Argument checks of modules generated ahead of time (`astjax transform`): a generated function
serves the signature it was compiled for, and says so clearly for any other arguments.

Needs only NumPy: generated modules import it without loading the compiler.
"""
import numpy as np

SCALARS = {"float": (bool, int, float), "int": (bool, int), "bool": (bool,)}


def check_arguments(function: str, args: tuple, specs: tuple, facts: tuple = (),
                    contiguous: bool = False) -> list:
    """The arguments as arrays (C-contiguous with `contiguous`, as Numba kernels take them),
    after checking them against `specs` ((name, dtype, dims) per argument; dtype
    "float"/"int"/"bool" for a Python scalar; dims ints or size names) and `facts`
    ((description, predicate over the named sizes) the compiled code relies on)."""
    if len(args) != len(specs):
        raise TypeError(f"{function}() takes {len(specs)} arguments ({_names(specs)}), "
                        f"got {len(args)}")
    sizes, origin, out = {}, {}, []
    for value, (name, dtype, dims) in zip(args, specs):
        if dtype in SCALARS:
            out.append(_scalar(function, name, value, dtype))
            continue
        arr = np.asarray(value)
        if arr.dtype != np.dtype(dtype) or arr.ndim != len(dims):
            raise TypeError(f"{function}(): {name} is {arr.dtype.name}{list(arr.shape)}; this "
                            f"code was generated for {name}: {dtype}[{', '.join(map(str, dims))}]"
                            " (compile other dtypes and ranks with astjax.jit)")
        for axis, (size, want) in enumerate(zip(arr.shape, dims)):
            _check_size(function, name, axis, size, want, sizes, origin)
        if contiguous:  # a Numba kernel takes 0-d values as scalars of their dtype
            arr = arr[()] if arr.ndim == 0 else np.ascontiguousarray(arr)
        out.append(arr)
    for description, holds in facts:
        if not holds(**sizes):
            raise ValueError(f"{function}(): the sizes {_listed(sizes)} break `{description}`, "
                             "which the generated code relies on (compile them with astjax.jit)")
    return out


def _check_size(function, name, axis, size, want, sizes, origin) -> None:
    where = f"{name}.shape[{axis}]"
    if isinstance(want, int):
        if size != want:
            raise ValueError(f"{function}(): {where} is {size}, the signature says {want}")
        return
    if want in sizes:
        if size != sizes[want]:
            raise ValueError(f"{function}(): {where} is {size}, but {want} is {sizes[want]} "
                             f"(from {origin[want]})")
        return
    if size < 2:
        raise ValueError(f"{function}(): {where} ({want}) is {size}; code generated for a named "
                         "size serves sizes of 2 or more (compile this call with astjax.jit)")
    sizes[want], origin[want] = size, where


def _scalar(function, name, value, kind):
    if isinstance(value, SCALARS[kind]) or (np.ndim(value) == 0 and _kind_matches(value, kind)):
        return value
    raise TypeError(f"{function}(): {name} must be a Python {kind}, not {type(value).__name__}")


def _kind_matches(value, kind) -> bool:
    return np.asarray(value).dtype.kind in {"float": "biuf", "int": "biu", "bool": "b"}[kind]


def _names(specs) -> str:
    return ", ".join(name for name, _, _ in specs)


def _listed(sizes: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sizes.items())
