"""Operators and array methods of abstract arrays: fills `Var.ops` (see `core/ir.py`).

`Var.ops[op]` implements an operator; `Var.ops["method:NAME"](x)` returns what `x.NAME` is: a
bound method, or the value of a property (`x.T`, `x.at`). Everything that needs a concrete value
(`bool(x)`, `int(x)`, `x.item()`, `x.nonzero()`) raises ConcretizationError instead.
"""
import functools

from . import _at, _creation, _elementwise as ew, _indexing, _linalg_ops, _reductions as red
from . import _selection, _shape
from . import _util as u
from ..core.ir import Var

OPERATORS = {
    "add": ew.add, "sub": ew.subtract, "mul": ew.multiply, "div": ew.divide,
    "floor_divide": ew.floor_divide, "rem": ew.remainder, "pow": ew.power,
    "matmul": _linalg_ops.matmul,
    "bitwise_and": ew.bitwise_and, "bitwise_or": ew.bitwise_or, "bitwise_xor": ew.bitwise_xor,
    "left_shift": ew.left_shift, "right_shift": ew.right_shift,
    "lt": ew.less, "le": ew.less_equal, "gt": ew.greater, "ge": ew.greater_equal,
    "eq": ew.equal, "ne": ew.not_equal,
    "neg": ew.negative, "pos": ew.positive, "abs": ew.absolute, "invert": ew.invert,
    "getitem": _indexing.getitem,
}


def _needs_concrete(what: str):
    def refuse(x, *args, **kwargs):
        raise u.concretization(
            f"an array value is used where a static Python value is needed ({what})",
            hint="inside a compiled function arrays are abstract: use jnp.where / lax.cond for "
                 "choices on values, or mark the argument static (static_argnums)")
    return refuse


CONCRETE = {"bool": "bool(x), if x: or while x:", "int": "int(x)", "float": "float(x)",
            "index": "x used as an index or a range bound"}

METHODS = {
    "sum": red.sum, "prod": red.prod, "max": red.max, "min": red.min, "mean": red.mean,
    "var": red.var, "std": red.std, "all": red.all, "any": red.any, "argmax": red.argmax,
    "argmin": red.argmin, "cumsum": red.cumsum, "cumprod": red.cumprod, "ptp": red.ptp,
    "ravel": _shape.ravel, "flatten": _shape.ravel, "swapaxes": _shape.swapaxes,
    "squeeze": _shape.squeeze, "repeat": _shape.repeat, "astype": _creation.astype,
    "clip": ew.clip, "round": ew.round, "dot": _linalg_ops.dot, "trace": _linalg_ops.trace,
    "diagonal": _linalg_ops.diagonal, "sort": _selection.sort, "argsort": _selection.argsort,
    "take": _selection.take, "conj": ew.conjugate, "conjugate": ew.conjugate,
    "copy": _creation.asarray,
}


def _reshape(x, *shape, order="C"):
    return _shape.reshape(x, shape[0] if len(shape) == 1 else shape, order)


def _transpose(x, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    return _shape.transpose(x, axes or None)


def _block_until_ready(x):
    return x


VARARG_METHODS = {"reshape": _reshape, "transpose": _transpose,
                  "block_until_ready": _block_until_ready}

PROPERTIES = {
    "T": _shape.transpose, "mT": _shape.matrix_transpose, "at": _at.IndexUpdateHelper,
    "real": ew.real, "imag": ew.imag,
}

REFUSED_METHODS = {"item": "x.item()", "tolist": "x.tolist()", "nonzero": "x.nonzero(), whose "
                   "result shape depends on the values", "__array__": "np.asarray(x)"}


def install():
    Var.ops.update(OPERATORS)
    Var.ops.update({op: _needs_concrete(what) for op, what in CONCRETE.items()})
    for name, fn in {**METHODS, **VARARG_METHODS}.items():
        Var.ops["method:" + name] = functools.partial(functools.partial, fn)
    for name, fn in PROPERTIES.items():
        Var.ops["method:" + name] = fn
    for name, what in REFUSED_METHODS.items():
        Var.ops["method:" + name] = functools.partial(functools.partial, _needs_concrete(what))


install()
