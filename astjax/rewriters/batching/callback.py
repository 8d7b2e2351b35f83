"""Batching of host calls. A pure_callback is batched as its `vmap_method` says (JAX's
meanings): "sequential" calls the function once per example (the loop runs in Python, inside
the host call), "expand_dims" and "broadcast_all" call it once with the whole batch (an
unbatched operand gets a leading axis of 1, or is broadcast to the batch), and
"legacy_vectorized" passes the operands as they are. Without a vmap_method it cannot be
batched (as in JAX)."""
from astjax.core.avals import AVal
from astjax.core.bind import bind, current_builder
from astjax.core.host import PerExample
from astjax.errors import TransformError

from .util import BATCH, batched


def batched_results(results: tuple, axis_size) -> tuple:
    return tuple(AVal((axis_size,) + tuple(a.shape), a.dtype) for a in results)


def per_example(name: str, args, dims, axis_size, callback, results, **params):
    """`name` bound once for the batch with a host function that loops over its examples."""
    looped = PerExample(callback, tuple(d is not None for d in dims), results)
    outs = bind(name, *args, callback=looped, results=batched_results(results, axis_size),
                **params)
    return outs, [0] * len(outs)


@BATCH.register("pure_callback")
def _pure_callback(args, dims, *, axis_size, callback, results, vmap_method):
    if vmap_method is None:
        builder = current_builder()
        raise TransformError("a pure_callback under vmap needs a vmap_method",
                             builder.loc if builder else None,
                             hint="pass vmap_method='sequential' (one call per example) or "
                                  "'expand_dims' / 'broadcast_all' (one call for the batch)")
    if vmap_method.startswith("sequential"):
        return per_example("pure_callback", args, dims, axis_size, callback, results,
                           vmap_method=vmap_method)
    if vmap_method != "legacy_vectorized":
        size = axis_size if vmap_method == "broadcast_all" else 1
        args = [batched(x, d, size) for x, d in zip(args, dims)]
    outs = bind("pure_callback", *args, callback=callback,
                results=batched_results(results, axis_size), vmap_method=vmap_method)
    return outs, [0] * len(outs)


@BATCH.register("undefined_derivative")
def _undefined_derivative(args, dims, *, axis_size, **params):
    return bind("undefined_derivative", args[0], **params), dims[0]
