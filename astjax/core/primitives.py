"""The one table of primitives, and the rule tables every stage keeps beside it.

A row (`Primitive`) says what a primitive *is*: its name, its NumPy implementation (what the
reference backend runs), its shape/dtype rule and its `kind`. What a stage does with it lives in
that stage's own `RuleTable`, keyed by the primitive's name: the JVP and VJP rules in
`astjax.rewriters.ad`, the batching rules in `astjax.rewriters.batching`, each backend's
lowerings in its package. What a stage does not support is read off its table
(`table.missing()`), never listed by hand, and `describe(name)` prints where every rule of one
primitive is defined.

The kind is the one partition of the primitive set that every stage follows: the rules of a
primitive of kind K live in a file named K in every folder (`core/prims/K.py`,
`rewriters/ad/K.py`, `rewriters/batching/K.py`, `backends/<backend>/K.py`).

Adding a primitive (the checklist):
  1. `define(...)` its row in `core/prims/<kind>.py`: impl(*operands, **params) on NumPy, and
     abstract(*avals, **params) -> AVal (or a list of AVals with multiple_results=True).
     Array operands are positional, static parameters keyword-only and hashable.
  2. Its derivatives in `rewriters/ad/<kind>.py`: a JVP (`tangent_rule`/`linear`/`JVP.register`)
     and a VJP (`VJP.register`); tests/test_vjp_rules.py checks both against central differences.
  3. Its batching rule in `rewriters/batching/<kind>.py` (elementwise ones are derived).
  4. A lowering in every backend's `<kind>.py` that has a table (Numba, XLA); the NumPy backend
     runs the row's impl.
  5. The user-facing function in `astjax/lax/` (a one-line `bind`) and, where NumPy has one,
     `astjax/numpy/`.
  `python -m astjax describe <name>` then shows the row and each rule's file:line; the tests
  that assert `missing() == []` for each table fail until every step is done.
"""
import importlib
import importlib.util
import keyword
import sys
from dataclasses import dataclass
from typing import Callable

from ..errors import TransformError

KINDS = ("elementwise", "reduction", "shape", "creation", "indexing", "contraction",
         "convolution", "window", "sorting", "linalg", "fft", "random", "collective", "control",
         "custom", "effect", "callback")


@dataclass(frozen=True)
class Primitive:
    name: str
    impl: Callable            # NumPy implementation: impl(*operands, **params) -> array(s)
    abstract: Callable        # shape/dtype rule: abstract(*avals, **params) -> AVal or [AVal]
    multiple_results: bool = False
    kind: str = "elementwise"
    where: str = ""           # file:line of its definition


PRIMITIVES: dict = {}
TABLES: dict = {}  # stage name -> RuleTable, in the order the stages were imported


def define(name: str, impl: Callable, abstract: Callable, *, kind: str,
           multiple_results: bool = False) -> Primitive:
    if name in PRIMITIVES or keyword.iskeyword(name):
        raise ValueError(f"primitive {name!r} defined twice or named by a Python keyword")
    if kind not in KINDS:
        raise ValueError(f"primitive {name!r}: unknown kind {kind!r} (one of {', '.join(KINDS)})")
    prim = Primitive(name, impl, abstract, multiple_results, kind, _registration_site())
    PRIMITIVES[name] = prim
    return prim


def get(name: str) -> Primitive:
    try:
        return PRIMITIVES[name]
    except KeyError:
        raise TransformError(f"unknown primitive lax.{name}") from None


class RuleTable:
    """One stage's rules, keyed by primitive name, all following the one `contract`.

    `covers(prim)` says which primitives the stage must have a rule for (all by default), so
    `missing()` is exactly what the stage still lacks. Registration refuses a name that is not a
    primitive (a misspelt rule would otherwise sit unused) and a second rule for one name.
    """

    def __init__(self, stage: str, contract: str, covers: Callable = lambda prim: True):
        if stage in TABLES:
            raise ValueError(f"a rule table for {stage!r} exists already")
        self.stage, self.contract, self.covers = stage, contract, covers
        self._rules: dict = {}
        self._where: dict = {}
        TABLES[stage] = self

    def register(self, *names: str):
        """Decorator: `@JVP.register("sin", "cos")` makes the function their rule."""
        def decorate(rule):
            for name in names:
                self.set(name, rule)
            return rule
        return decorate

    def set(self, name: str, rule: Callable) -> None:
        prim = PRIMITIVES.get(name)
        if prim is None:
            raise ValueError(f"{self.stage} rule for {name!r}: there is no such primitive")
        if not self.covers(prim):
            raise ValueError(f"{self.stage} rules do not cover lax.{name} (kind {prim.kind})")
        if name in self._rules:
            raise ValueError(f"{self.stage} rule for lax.{name} registered twice "
                             f"(first at {self._where[name]})")
        self._rules[name] = rule
        self._where[name] = _registration_site()

    def get(self, name: str):
        return self._rules.get(name)

    def __getitem__(self, name: str):
        return self._rules[name]

    def __contains__(self, name: str) -> bool:
        return name in self._rules

    def where(self, name: str) -> str:
        return self._where.get(name, "")

    def missing(self) -> list:
        """The covered primitives that have no rule yet."""
        return sorted(n for n, p in PRIMITIVES.items() if self.covers(p) and n not in self._rules)


def missing(stage: str) -> list:
    """What the stage named `stage` (e.g. "jvp", "batch", "numba") has no rule for yet."""
    if stage not in TABLES:
        raise ValueError(f"no rule table {stage!r} is loaded (loaded: {', '.join(TABLES)})")
    return TABLES[stage].missing()


def describe(name: str) -> str:
    """A primitive's row and, for every loaded stage, where its rule is defined."""
    prim = get(name)
    lines = [f"lax.{prim.name}: kind {prim.kind}"
             + (", multiple results" if prim.multiple_results else ""),
             f"  {'row':14} {prim.where}"]
    for stage, table in TABLES.items():
        if table.covers(prim):
            lines.append(f"  {stage:14} {table.where(name) or 'MISSING'}")
    return "\n".join(lines)


def import_kinds(package: str) -> None:
    """Import `package.<kind>` for every kind that has a module there: a stage's rules."""
    for kind in KINDS:
        name = f"{package}.{kind}"
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def _registration_site() -> str:
    """file:line of the module-level statement that is registering (a rule defined through a
    helper such as `unary(...)` is reported where that helper is called)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{_short(frame.f_code.co_filename)}:{frame.f_lineno}"


def _short(path: str) -> str:
    marker = "/astjax/"
    i = path.rfind(marker)
    return path[i + 1:] if i >= 0 else path
