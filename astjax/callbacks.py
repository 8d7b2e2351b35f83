"""Calling Python from compiled code: `pure_callback`, `experimental.io_callback` and
`debug.callback`, as in JAX.

Each becomes one primitive whose parameter is the user's function (`core/host.py`). The NumPy
backend calls it directly and XLA through jaxlib's host callback; Numba kernels cannot hold a
live Python function, so a function with a callback stays on its first tier (`auto`).
Outside compilation the function is simply called.
"""
from .abstract import ShapeDtypeStruct  # noqa: F401  (what result_shape_dtypes are made of)
from .core.avals import AVal, canonical_dtype
from .core.bind import aval, bind, current_builder
from .core.hooks import provide
from .core.host import HostFunction
from .errors import TransformError
from .frontend.host_functions import python_function
from .tree_util import tree_flatten, tree_unflatten

VMAP_METHODS = (None, "sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized")


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  vectorized=None, **kwargs):
    """`callback(*args, **kwargs)` computed by Python, its results shaped as
    `result_shape_dtypes` (a pytree of objects with `.shape` and `.dtype`, such as
    `ShapeDtypeStruct`). Treated as pure: it may run once for equal arguments, or not at all
    when nothing reads its result. Under vmap, `vmap_method` says how it is called (JAX's
    meanings); it has no derivative (wrap it in `custom_jvp` for one)."""
    if vectorized is not None:  # (JAX's older spelling of vmap_method)
        vmap_method = vmap_method or ("legacy_vectorized" if vectorized else "sequential")
    if vmap_method not in VMAP_METHODS:
        raise TransformError(f"pure_callback's vmap_method must be one of "
                             f"{', '.join(map(repr, VMAP_METHODS))}, not {vmap_method!r}")
    outs, out_tree = _bound("pure_callback", callback, result_shape_dtypes, args, kwargs,
                            vmap_method=vmap_method)
    return _unflattened(out_tree, outs)


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False,
                **kwargs):
    """`callback(*args, **kwargs)` called every time the computation reaches it (an effect:
    never skipped, and in program order), its results shaped as `result_shape_dtypes`."""
    outs, out_tree = _bound("io_callback", callback, result_shape_dtypes, args, kwargs,
                            ordered=bool(ordered))
    return _unflattened(out_tree, outs)


def debug_callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """`callback(*args, **kwargs)` called for what it does when the computation reaches it
    (`jax.debug.callback`); its result is ignored, and derivatives see through it."""
    operands, in_tree = tree_flatten((args, kwargs))
    builder = current_builder()
    host = HostFunction(python_function(callback), in_tree, None,
                        builder.loc if builder else None, "debug.callback")
    bind("debug_callback", *operands, callback=host, ordered=bool(ordered))


provide("debug_callback", debug_callback)  # (for astjax.debug.callback, in the library)


def _bound(name: str, callback, result_shape_dtypes, args, kwargs, **params):
    """The primitive `name` applied: its results' leaves and their tree."""
    operands, in_tree = tree_flatten((args, kwargs))
    declared, out_tree = tree_flatten(result_shape_dtypes)
    results = tuple(_declared(d, name) for d in declared)
    builder = current_builder()
    host = HostFunction(python_function(callback), in_tree, out_tree,
                        builder.loc if builder else None, name)
    return bind(name, *operands, callback=host, results=results, **params), out_tree


def _declared(leaf, name: str) -> AVal:
    shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
    if shape is None or dtype is None:
        known = aval(leaf) if hasattr(leaf, "__array__") else None
        if known is None:
            raise TransformError(f"{name}'s result_shape_dtypes must hold objects with a shape "
                                 f"and a dtype, not {type(leaf).__name__}",
                                 hint="describe each result as jax.ShapeDtypeStruct(shape, "
                                      "dtype)")
        return known.strong()
    return AVal(tuple(shape), canonical_dtype(dtype))


def _unflattened(out_tree, outs):
    return tree_unflatten(out_tree, list(outs))
