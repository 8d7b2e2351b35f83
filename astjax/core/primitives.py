"""The one table of primitives.

Each row holds everything the system knows about one primitive: its NumPy implementation, its
shape/dtype rule, and (registered by the modules that own them) its JVP, VJP and batching
rules and its Numba and XLA lowerings. What a transformation or a backend does not support is
read off this table (`missing`), never listed by hand.
"""
import keyword
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..errors import TransformError


@dataclass
class Primitive:
    name: str
    impl: Callable            # NumPy implementation: impl(*operands, **params) -> array(s)
    abstract: Callable        # shape/dtype rule: abstract(*avals, **params) -> AVal or [AVal]
    multiple_results: bool = False
    kind: str = "other"       # "elementwise", "reduction", "structural", "control", ...
    jvp: Optional[Callable] = None
    vjp: Optional[Callable] = None
    batch: Optional[Callable] = None
    numba: Optional[Any] = None
    xla: Optional[Any] = None


PRIMITIVES: dict = {}


def define(name: str, impl: Callable, abstract: Callable, **fields) -> Primitive:
    if name in PRIMITIVES or keyword.iskeyword(name):
        raise ValueError(f"primitive {name!r} defined twice or named by a Python keyword")
    prim = PRIMITIVES[name] = Primitive(name, impl, abstract, **fields)
    return prim


def get(name: str) -> Primitive:
    try:
        return PRIMITIVES[name]
    except KeyError:
        raise TransformError(f"unknown primitive lax.{name}") from None


def register(rule: str, name: str, value) -> None:
    """Fill one rule of a row: register("jvp", "sin", sin_jvp)."""
    setattr(get(name), rule, value)


def missing(rule: str) -> list:
    """Names of the primitives that have no `rule` yet (e.g. missing("jvp"))."""
    return sorted(p.name for p in PRIMITIVES.values() if getattr(p, rule) is None)
