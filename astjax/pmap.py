"""`pmap`: fun run once per example of a mapped axis, each on its own device, collectives
(`lax.psum(x, axis_name)`, `pmean`, `pmax`, `pmin`, `all_gather`, `ppermute`, `axis_index`)
spanning the examples.

    pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None)

On the XLA backend (`backend="xla"`, or `ASTJAX_BACKEND=xla`) each example runs on one XLA
device, all as replicas of one executable whose collectives are cross-replica operations; the
mapped axis may not be longer than the devices available (host CPU devices are multiplied with
`XLA_FLAGS=--xla_force_host_platform_device_count=N`). On the NumPy and Numba backends there is
one device, and pmap computes the same values as `vmap(fun, axis_name=...)` under `jit`. Inside
a function being compiled (`jit(pmap(f))`, `grad` of a pmapped function) it is that vmap too.

In a multi-process job (`astjax.distributed.initialize()` under mpiexec) each process passes
its own equal share of the mapped axis; pmap is then that vmap over the share on every backend,
its collectives combining the share's examples and then every process' results over MPI
(`core/processes.py`; the batching rules in `rewriters/batching/collective.py`).
"""
import functools

import numpy as np

from .batching import VMap, _axis_size, _broadcast_prefix, _in_axes, _leaf_names, _normalise
from .compiled import default_backend, jit
from .core.array import as_array
from .core import processes
from .core.axes import named_axis
from .core.bind import current_builder
from .errors import ShapeError, TransformError
from .frontend.specialize import dynamic_leaves, specialize, split_arguments
from .tree_util import tree_flatten, tree_leaves, tree_unflatten


def pmap(fun=None, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, **unsupported):
    if fun is None:
        return functools.partial(pmap, axis_name=axis_name, in_axes=in_axes, out_axes=out_axes,
                                 static_broadcasted_argnums=static_broadcasted_argnums,
                                 devices=devices, backend=backend, **unsupported)
    if unsupported:
        raise TransformError(f"pmap does not take {', '.join(sorted(unsupported))} yet")
    return PMap(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices, backend)


class PMap:
    def __init__(self, fun, axis_name, in_axes, out_axes, static, devices, backend):
        self.fun, self.axis_name = fun, axis_name
        self.in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
        self.out_axes = out_axes
        self.static = (static,) if isinstance(static, int) else tuple(static)
        self.devices, self.backend = devices, backend
        self._entries: dict = {}
        self._emulated: dict = {}
        self._checked: set = set()  # argument shapes whose shares were checked across processes
        functools.update_wrapper(self, fun, updated=())

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TransformError("pmap passes arguments by position only",
                                 hint="call the pmapped function with positional arguments")
        if current_builder() is not None:  # inside a compiled function: a named vmap
            return self._vmap(len(args))(*args)
        backend = self.backend or default_backend()
        if processes.count() > 1:
            self._check_equal_shares(args)
            return self._single_device(backend, len(args))(*args)
        if backend != "xla":
            return self._single_device(backend, len(args))(*args)
        return self._replicated(args)

    # ------------------------------------------------------------ one device: a named vmap
    def _vmap(self, nargs: int) -> VMap:
        """pmap as a vmap naming its axis; across processes, a vmap over this process' share
        of the axis whose collectives combine every process' results."""
        axes = self.in_axes if isinstance(self.in_axes, tuple) else \
            tuple(None if i in self.static else self.in_axes for i in range(nargs))
        mapped = VMap(self.fun, axes, self.out_axes, axis_name=self.axis_name)
        mapped.processes = processes.count()
        return mapped

    def _single_device(self, backend: str, nargs: int):
        key = (backend, nargs)
        if key not in self._emulated:
            self._emulated[key] = jit(self._vmap(nargs), static_argnums=self.static,
                                      backend=backend)
        return self._emulated[key]

    def _check_equal_shares(self, args) -> None:
        """Every process must map as many examples (the collectives exchange equal parts):
        checked once per argument shapes, by gathering each process' count."""
        leaves, _ = tree_flatten(self._dynamic(args))
        shapes = tuple(np.shape(x) for x in leaves)
        if shapes in self._checked:
            return
        counts = processes.allgather(np.int64(self._mapped(args, leaves)[1]))
        if len(set(counts.tolist())) != 1:
            raise ShapeError(f"pmap across {len(counts)} processes needs the same number of "
                             f"examples in each; they pass {', '.join(map(str, counts))} "
                             f"(this is process {processes.index()})",
                             hint="give every process an equal share of the mapped axis")
        self._checked.add(shapes)

    # ------------------------------------------------------------ XLA: one replica per example
    def _replicated(self, args):
        leaves, tree = tree_flatten(self._dynamic(args))
        axes, size = self._mapped(args, leaves)
        devices = self._devices(size)
        key = (tree, tuple((np.shape(x), np.asarray(x).dtype.str) for x in leaves), tuple(axes),
               tuple((i, args[i]) for i in self.static))
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Replicated(self, args, leaves, axes, size, devices)
        return entry.run(args, leaves, axes)

    def _dynamic(self, args) -> tuple:
        return tuple(a for i, a in enumerate(args) if i not in self.static)

    def _mapped(self, args, leaves) -> tuple:
        """(each leaf's mapped axis, the number of examples along them)."""
        axes = self._leaf_axes(args, leaves)
        return axes, _axis_size(leaves, axes, _leaf_names(self.fun, self._dynamic(args)), None)

    def _leaf_axes(self, args, leaves) -> list:
        specs = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(args)
        if len(specs) != len(args):
            _in_axes(self.in_axes, args)  # raises the error about the count
        axes = []
        for i, (spec, arg) in enumerate(zip(specs, args)):
            if i in self.static:
                continue
            for a, x in zip(_broadcast_prefix(spec, arg, "in_axes"), tree_leaves(arg)):
                axes.append(_normalise(a, np.ndim(x), f"argument {i}", "in_axes"))
        return axes

    def _devices(self, size: int) -> list:
        from .backends.xla import client
        available = list(self.devices) if self.devices is not None else client.devices()
        if size > len(available):
            raise ShapeError(f"pmap's mapped axis has {size} examples but only {len(available)} "
                             f"XLA device{'s are' if len(available) != 1 else ' is'} available",
                             hint="map fewer examples (reshape to (devices, -1, ...) and vmap "
                                  "inside), or set XLA_FLAGS=--xla_force_host_platform_device"
                                  f"_count={size} before the first XLA call")
        return available[:size]


class _Replicated:
    """One specialisation of a pmap on XLA: the per-example core form compiled for `size`
    replicas."""

    def __init__(self, pmap: PMap, args, leaves, axes, size, devices):
        from .backends import xla
        self.size, self.pmap = size, pmap
        bound, self.static = self._bound(args, leaves, axes, 0)
        with named_axis(pmap.axis_name, size):
            self.spec = specialize(pmap.fun, bound, self.static, False)
        loc = self.spec.func.loc
        self.call = xla.compile_replicated(self.spec.func, loc.file if loc else "?",
                                           pmap.axis_name, size)

    def _bound(self, args, leaves, axes, d: int):
        """The arguments of example d: each mapped leaf's slice d, the others as given."""
        taken = iter([np.take(x, d, axis=a) if a is not None else x for x, a in zip(leaves, axes)])
        examples = list(args)
        for i, arg in enumerate(args):
            if i not in self.pmap.static:
                arg_leaves, arg_tree = tree_flatten(arg)
                examples[i] = tree_unflatten(arg_tree, [next(taken) for _ in arg_leaves])
        return split_arguments(self.pmap.fun, tuple(examples), {}, self.pmap.static, (), None)

    def run(self, args, leaves, axes):
        implicit = [_read(ns, name) for ns, name in self.spec.implicit]
        per_device = []
        for d in range(self.size):
            bound, _ = self._bound(args, leaves, axes, d)
            per_device.append(dynamic_leaves(bound, self.static)[0] + implicit)
        outs = self.call(per_device)
        spec = self.spec
        count = len(spec.func.outs) + len(spec.out_static)
        out_axes = _broadcast_prefix(self.pmap.out_axes, tree_unflatten(spec.out_tree, [0] * count),
                                     "out_axes")
        flat, it = [], iter(outs)
        for i, axis in enumerate(out_axes):
            if i in spec.out_static:
                flat.append(spec.out_static[i])
                continue
            replicas = [np.asarray(b) for b in next(it)]
            flat.append(as_array(replicas[0] if axis is None else np.stack(replicas, axis=axis)))
        return tree_unflatten(spec.out_tree, flat)


def _read(namespace, name):
    import types
    value = namespace[name]
    return value.cell_contents if isinstance(value, types.CellType) else value
