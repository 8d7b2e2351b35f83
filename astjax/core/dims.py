"""Symbolic dimensions: array sizes that stay unknown while a function is specialised.

A jitted function is specialised once per pytree structure, dtype and rank; each array size of
2 or more becomes a *symbol* (`x.shape[0]`), so one specialisation serves every length. A size
is a `DimExpr`, a polynomial with integer coefficients over symbols (`2*x.shape[0] - 1`), that
behaves like an int under arithmetic.

What the program asks of a size is decided by the *witness*, the size the specialisation was
made for, and recorded as a `Fact` the entry keeps (`x.shape[0] > 3`, `x.shape[1] == 5` for an
unrolled `range(x.shape[1])`, `x.shape[0] == w.shape[1]` for a contraction). A later call is
served by the entry only if its sizes satisfy every fact, else it gets its own specialisation
(logged with the fact it broke). So a size that only flows through the program costs nothing,
and one that the program inspects pins what it must: never a wrong answer.

Comparisons that hold for every size (symbols are >= 2: sizes 0 and 1 stay concrete, since
broadcasting and emptiness depend on them) are decided without a fact: `x.shape[0] > 1`,
`x.shape[0] + 1 == x.shape[0] + 1`. `int(d)` (and anything that needs a Python int:
`range`, `np.zeros(d)`) records `d == witness`.
"""
import contextlib
import dataclasses
import itertools
import operator
import threading
from dataclasses import dataclass, field

_ids = itertools.count()
_state = threading.local()


class Symbol:
    """One unknown size: `name` for messages (`x.shape[0]`), `code` for generated source."""
    __slots__ = ("id", "name", "code", "witness", "source")

    def __init__(self, name: str, code: str, witness: int, source=None):
        self.id, self.name, self.code, self.witness = next(_ids), name, code, int(witness)
        self.source = source  # (leaf index, axis) of the argument it is the size of

    def __repr__(self):
        return self.name

    def __setstate__(self, state):
        # Unpickled: an id of this process (DimExpr's structure keys are built from ids)
        for name, value in state[1].items():
            setattr(self, name, value)
        self.id = next(_ids)


@dataclass(frozen=True, eq=False)
class Fact:
    """`expr op 0` held (or not: `holds`) for the witness sizes, where the program asked."""
    expr: "DimExpr"
    op: str            # "==", "<", "<="
    holds: bool
    where: object = None  # the user's SourceLoc, when known
    # A code generator's choice by size class (`by_size`): code made with it is right for
    # every size, only made for these ones.
    choice: bool = False

    def check(self, env: dict) -> bool:
        return _OPS[self.op](self.expr.evaluate(env), 0) == self.holds

    def __str__(self):
        shown = _rearranged(self.expr, self.op)
        return shown if self.holds else f"not ({shown})"


_OPS = {"==": operator.eq, "<": operator.lt, "<=": operator.le}


@dataclass
class Facts:
    """The facts recorded while one specialisation is made; `where()` names the user's line
    being compiled when a fact is recorded."""
    items: list = field(default_factory=list)
    where: object = lambda: None
    # Whether a code generator's choice of size class (see `by_size`) is recorded: yes under
    # jit (a call in another class gets its own code), no ahead of time (one code for all).
    choices: bool = True

    def add(self, fact: Fact) -> None:
        key = (fact.expr.key, fact.op, fact.holds)
        for i, f in enumerate(self.items):
            if (f.expr.key, f.op, f.holds) == key:
                if f.choice and not fact.choice:  # (relied on now, not only chosen by)
                    self.items[i] = fact
                return
        self.items.append(fact)


@contextlib.contextmanager
def recording(facts: Facts):
    stack = _stack()
    stack.append(facts)
    try:
        yield facts
    finally:
        stack.pop()


@contextlib.contextmanager
def spelling(names: dict):
    """Within: `str(size)` and f-strings give the code computing it, each symbol spelt as
    `names[symbol]` (a code generator's locals holding the arguments' sizes)."""
    outer = getattr(_state, "spelling", None)
    _state.spelling = names
    try:
        yield names
    finally:
        _state.spelling = outer


def _stack() -> list:
    if not hasattr(_state, "stack"):
        _state.stack = []
    return _state.stack


def _record(expr, op, holds) -> None:
    stack = _stack()
    if op == "==" and _leading(expr) < 0:  # one form per equality: x == w, not w - x == 0 too
        expr = -expr
    if stack:
        facts = stack[-1]
        facts.add(Fact(expr, op, holds, facts.where()))


class DimExpr:
    """A polynomial over symbols with integer coefficients; never a constant (those are ints).

    `terms` maps a monomial (a tuple of symbols, sorted by id, repeated for powers; () is the
    constant) to its coefficient.
    """
    __slots__ = ("terms", "key", "_hash")

    def __init__(self, terms: dict):
        self.terms = terms
        self.key = frozenset((tuple(s.id for s in m), c) for m, c in terms.items())  # structure
        self._hash = hash(self.key)

    def __setstate__(self, state):
        # Unpickled: its symbols have ids of this process now, so monomials are sorted and
        # the structure key built again from them
        terms: dict = {}
        for monomial, coeff in state[1]["terms"].items():
            m = tuple(sorted(monomial, key=lambda s: s.id))
            terms[m] = terms.get(m, 0) + coeff
        self.__init__(terms)

    @staticmethod
    def of(symbol: Symbol) -> "DimExpr":
        return DimExpr({(symbol,): 1})

    # ------------------------------------------------------------ arithmetic
    def __add__(self, other):
        other = _terms(other)
        if other is None:
            return NotImplemented
        return _make(_combine(self.terms, other, 1))

    __radd__ = __add__

    def __sub__(self, other):
        other = _terms(other)
        if other is None:
            return NotImplemented
        return _make(_combine(self.terms, other, -1))

    def __rsub__(self, other):
        other = _terms(other)
        if other is None:
            return NotImplemented
        return _make(_combine(other, self.terms, -1))

    def __neg__(self):
        return _make({m: -c for m, c in self.terms.items()})

    def __pos__(self):
        return self

    def __mul__(self, other):
        other = _terms(other)
        if other is None:
            return NotImplemented
        out: dict = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.items():
                m = tuple(sorted(m1 + m2, key=lambda s: s.id))
                out[m] = out.get(m, 0) + c1 * c2
        return _make(out)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        exact = _divide(self.terms, other)
        return _make(exact) if exact is not None else int(self) // _pin(other)

    def __rfloordiv__(self, other):
        return _pin(other) // int(self)

    def __mod__(self, other):
        if _divide(self.terms, other) is not None:
            return 0
        return int(self) % _pin(other)

    def __rmod__(self, other):
        return _pin(other) % int(self)

    def __divmod__(self, other):  # (jnp.split's sections of a symbolic length)
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __truediv__(self, other):
        return int(self) / _pin(other)

    def __rtruediv__(self, other):
        return _pin(other) / int(self)

    def __pow__(self, k):
        if isinstance(k, int) and k >= 0:
            out = 1
            for _ in range(k):
                out = out * self
            return out
        return int(self) ** _pin(k)

    # ------------------------------------------------------------ comparisons
    def __eq__(self, other):
        if _terms(other) is None:
            return NotImplemented
        return _decide(self - other, "==")

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __lt__(self, other):
        return _decide(self - other, "<") if _terms(other) is not None else NotImplemented

    def __le__(self, other):
        return _decide(self - other, "<=") if _terms(other) is not None else NotImplemented

    def __gt__(self, other):
        return _decide(other - self, "<") if _terms(other) is not None else NotImplemented

    def __ge__(self, other):
        return _decide(other - self, "<=") if _terms(other) is not None else NotImplemented

    def __hash__(self):
        return self._hash

    def __bool__(self):
        return not _decide(self, "==")

    # ------------------------------------------------------------ as an int
    def __index__(self):
        value = self.witness
        _record(self - value, "==", True)
        return value

    __int__ = __index__

    def __float__(self):
        return float(int(self))

    @property
    def witness(self) -> int:
        return self.evaluate({})

    def evaluate(self, env: dict) -> int:
        """The value for the sizes in `env` ({symbol: int}); symbols not in it take their
        witness."""
        total = 0
        for monomial, coeff in self.terms.items():
            value = coeff
            for s in monomial:
                value *= env.get(s, s.witness)
            total += value
        return total

    def symbols(self) -> set:
        return {s for m in self.terms for s in m}

    def code(self, names: dict) -> str:
        """Python source computing it, each symbol spelt as `names[symbol]`."""
        return _render(self.terms, lambda s: names[s])

    def __repr__(self):
        """The witness: messages about a call show that call's sizes (`(3,)`)."""
        return str(self.witness)

    def __str__(self):
        """Inside `spelling(names)`: the source computing the size (parenthesised unless it
        is one name), so generated code that formats a size reads it from the arguments.
        Elsewhere the witness, as repr."""
        names = getattr(_state, "spelling", None)
        if names is None:
            return repr(self)
        if not self.symbols() <= names.keys():  # no name for it here: only this size
            return str(int(self))
        text = self.code(names)
        return text if text.isidentifier() else f"({text})"

    def __format__(self, spec):
        return format(str(self), spec)

    def describe(self) -> str:
        """The expression over the symbols' names (`2 * x.shape[0] - 1`)."""
        return _render(self.terms, lambda s: s.name)


# ---------------------------------------------------------------- helpers
def is_symbolic(d) -> bool:
    return isinstance(d, DimExpr)


def known_equal(a, b) -> bool:
    """Whether two sizes are equal for every size this specialisation serves: by the algebra,
    or by an equality among the facts recorded so far.  Never asks the witness, so never
    records a fact (unequal or undecided is False)."""
    diff = a - b
    if not isinstance(diff, DimExpr):
        return diff == 0
    low, high = _bounds(diff)
    if low == high == 0:
        return True
    stack = _stack()
    keys = (diff.key, (-diff).key)
    return bool(stack) and any(f.op == "==" and f.holds and f.expr.key in keys
                               for f in stack[-1].items)


def current_facts():
    """The Facts being recorded now (None outside `recording`)."""
    stack = _stack()
    return stack[-1] if stack else None


def pinned(d):
    """The size as an int when it is one, or when every symbol in it has been pinned to a value
    by an equality fact of the current recording (`x.shape[0] == 2`); else None.  A code
    generator asks this before a choice that needs the exact size (unrolling), so that a size
    the program left free stays free."""
    if not isinstance(d, DimExpr):
        return int(d)
    stack = _stack()
    if not stack:
        return None
    fixed = set()
    for fact in stack[-1].items:
        varying = [(m, c) for m, c in fact.expr.terms.items() if m]
        if fact.op == "==" and fact.holds and len(varying) == 1:
            (monomial, coeff), = varying
            if len(monomial) == 1 and abs(coeff) == 1:
                fixed.add(monomial[0])
    return d.witness if d.symbols() <= fixed else None


def by_size(decide) -> bool:
    """A code generator's choice by size class (`lambda: size < 65536`: a parallel loop or
    not, BLAS or a loop), where either outcome is correct code for every size. Decided by the
    witness; recorded as a fact only when the current Facts keep choices."""
    stack = _stack()
    if stack and not stack[-1].choices:
        with recording(Facts()):  # decided, not kept
            return bool(decide())
    if not stack:
        return bool(decide())
    outer = stack[-1]
    with recording(Facts(items=list(outer.items), where=outer.where)) as asked:
        decided = bool(decide())  # (seeded with what is known: the same decision)
    for fact in asked.items[len(outer.items):]:
        outer.add(dataclasses.replace(fact, choice=True))
    return decided


def choices_kept() -> bool:
    """Whether a code generator may make code for the witness's sizes alone (under jit, each
    call's sizes are checked against the facts it records; ahead of time, one code serves
    every size)."""
    stack = _stack()
    return bool(stack) and stack[-1].choices


def single_symbol(d):
    """The symbol when `d` is exactly one symbol (a parameter's size), else None."""
    if isinstance(d, DimExpr) and len(d.terms) == 1:
        ((monomial, coeff),) = d.terms.items()
        if coeff == 1 and len(monomial) == 1:
            return monomial[0]
    return None


def symbols_in(shape) -> set:
    out = set()
    for d in shape:
        if isinstance(d, DimExpr):
            out |= d.symbols()
    return out


def concrete(shape, env=None) -> tuple:
    """The shape with every symbol replaced by its size in `env` (else its witness)."""
    env = env or {}
    return tuple(d.evaluate(env) if isinstance(d, DimExpr) else d for d in shape)


def _terms(x):
    if isinstance(x, DimExpr):
        return x.terms
    if isinstance(x, bool):
        return None
    if isinstance(x, int) or (hasattr(x, "__index__") and type(x).__module__ == "numpy"):
        return {(): int(x)} if int(x) else {}
    return None


def _combine(a: dict, b: dict, sign: int) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
    return out


def _make(terms: dict):
    terms = {m: c for m, c in terms.items() if c}
    if not terms:
        return 0
    if list(terms) == [()]:
        return terms[()]
    return DimExpr(terms)


def _divide(terms: dict, other):
    """terms / other when exact: by an int dividing every coefficient, or by one monomial
    dividing every term; else None."""
    if isinstance(other, int) and not isinstance(other, bool) and other:
        if all(c % other == 0 for c in terms.values()):
            return {m: c // other for m, c in terms.items()}
        return None
    if isinstance(other, DimExpr) and len(other.terms) == 1:
        (dm, dc), = other.terms.items()
        out = {}
        for m, c in terms.items():
            rest = list(m)
            for s in dm:
                if s not in rest:
                    return None
                rest.remove(s)
            if c % dc:
                return None
            out[tuple(rest)] = c // dc
        return out
    return None


def _pin(x):
    return int(x) if isinstance(x, DimExpr) else x


def _bounds(expr) -> tuple:
    """(lowest, highest) value over every size (symbols >= 2); infinite where unbounded."""
    if not isinstance(expr, DimExpr):
        return expr, expr
    coeffs = [c for m, c in expr.terms.items() if m]
    at_two = expr.evaluate({s: 2 for s in expr.symbols()})  # monotone when signs agree
    low = at_two if all(c >= 0 for c in coeffs) else -float("inf")
    high = at_two if all(c <= 0 for c in coeffs) else float("inf")
    return low, high


def _decide(diff, op: str) -> bool:
    """Whether `diff op 0`: from the algebra when it holds for every size, else from the
    witness, recorded as a fact."""
    low, high = _bounds(diff)
    known = {"==": (True if low == high == 0 else False if low > 0 or high < 0 else None),
             "<": (True if high < 0 else False if low >= 0 else None),
             "<=": (True if high <= 0 else False if low > 0 else None)}[op]
    if known is not None:
        return known
    holds = _OPS[op](diff.witness, 0)
    _record(diff, op, holds)
    return holds


_FLIPPED = {"==": "==", "<": ">", "<=": ">="}


def _leading(expr: DimExpr) -> int:
    """The coefficient of its first term in a fixed order (highest degree, oldest symbol)."""
    return min(expr.terms.items(), key=lambda mc: (-len(mc[0]), [s.id for s in mc[0]]))[1]


def _rearranged(expr: DimExpr, op: str) -> str:
    """`x.shape[0] - w.shape[1] == 0` shown as `x.shape[0] == w.shape[1]`, `-x.shape[0] + 3 < 0`
    as `x.shape[0] > 3`."""
    terms = dict(expr.terms)
    if _leading(expr) < 0:
        terms, op = {m: -c for m, c in terms.items()}, _FLIPPED[op]
    left = {m: c for m, c in terms.items() if m and c > 0}
    right = {m: -c for m, c in terms.items() if not m or c < 0}
    return f"{_render(left, lambda s: s.name)} {op} {_render(right, lambda s: s.name)}"


def _render(terms: dict, name) -> str:
    parts = []
    for m, c in sorted(terms.items(), key=lambda mc: (-len(mc[0]), [s.id for s in mc[0]])):
        body = " * ".join(name(s) for s in m)
        if not m:
            text = str(abs(c))
        elif abs(c) == 1:
            text = body
        else:
            text = f"{abs(c)} * {body}"
        parts.append((c < 0, text))
    if not parts:
        return "0"
    (neg, first), rest = parts[0], parts[1:]
    out = f"-{first}" if neg else first
    for neg, text in rest:
        out += f" - {text}" if neg else f" + {text}"
    return out


# ---------------------------------------------------------------- slices of symbolic sizes
def slice_indices(slc: slice, length) -> tuple:
    """`slc.indices(length)` for a length that may be symbolic: (start, stop, step), each
    clamped as Python clamps them (a comparison with the length that depends on it is a fact)."""
    step = 1 if slc.step is None else _pin(slc.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    low, high = (0, length) if step > 0 else (-1, length - 1)

    def bound(value, default):
        if value is None:
            return default
        value = _pin(value)
        if value < 0:
            value = value + length
            return low if value < low else value
        return high if value > high else value

    return bound(slc.start, low if step > 0 else high), \
        bound(slc.stop, high if step > 0 else low), step


def slice_length(start, stop, step):
    """len(range(start, stop, step)) for bounds that may be symbolic."""
    span = stop - start if step > 0 else start - stop
    size = abs(step)
    count = (span + size - 1) // size
    return count if count > 0 else 0
