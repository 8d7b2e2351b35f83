"""Expression evaluation for the interpreter (`ExpressionsMixin`, a base of `Interpreter`):
names, literals, operators, calls, indexing, comprehensions.

Whose error it is. Python raises TypeError, IndexError, ... (PYTHON_ERRORS) both for the user's
mistakes and for astjax's own bugs, so where it is raised decides:

- an operation the user wrote, run on the user's values (an operator, a call, an index, an
  attribute, iteration, a truth test, a format, an import), runs through `user_op` (or
  `apply`), which reports its error at the user's node as an AstjaxError: `T[10]` on a
  3-tuple, `int("a")`, `len(1, 2)`. A call counts even when it goes into astjax's library
  (`jnp.sum(x, bogus=1)`): the user chose the function and its arguments. (So a bug inside
  the library, reached from such a call, is reported at that call, with the original error as
  its cause: nothing tells it apart from bad arguments there.)
- the same error escaping an eval_/exec_ handler from anywhere else was raised by the
  interpreter's own machinery (a handler, the rewriters, a control-flow conversion): an astjax
  bug, raised as `InternalError` (not an AstjaxError) naming the user's line being compiled.
"""
import ast
import functools
import operator
import types

import libcst as cst
import numpy as np

from ..core.ir import Var
from ..errors import AstjaxError, ConcretizationError, ImpurityError, UnsupportedSyntaxError
from . import resolve
from .check import MUTATING_METHODS, NOT_OWNED_CONTAINER_HINT, method_mutation, unsupported_syntax
from .frame import Frame
from .values import UserFunction

_BINARY = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
    cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
    cst.Power: operator.pow, cst.MatrixMultiply: operator.matmul, cst.BitAnd: operator.and_,
    cst.BitOr: operator.or_, cst.BitXor: operator.xor, cst.LeftShift: operator.lshift,
    cst.RightShift: operator.rshift,
}
_UNARY = {cst.Minus: operator.neg, cst.Plus: operator.pos, cst.BitInvert: operator.invert}
_COMPARE = {
    cst.LessThan: operator.lt, cst.LessThanEqual: operator.le, cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge, cst.Equal: operator.eq, cst.NotEqual: operator.ne,
    cst.Is: operator.is_, cst.IsNot: operator.is_not, cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}
# What Python raises for a wrong operation: the user's or astjax's, by where (see above)
PYTHON_ERRORS = (TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError,
                 OverflowError, NotImplementedError)


class InternalError(RuntimeError):
    """A bug of astjax met while compiling user code: not an AstjaxError, since the user's
    code is not at fault. It names the user's line being compiled; its cause is the error."""

    def __init__(self, error: Exception, where):
        super().__init__(f"internal error in astjax while compiling {where}: "
                         f"{type(error).__name__}: {error}")


class ExpressionsMixin:
    """Evaluates expressions. The Interpreter it is mixed into provides `names` (a
    resolve.Names), `user_function`, `make_closure`, `assign`, `loc` and `set_loc`."""

    def eval(self, node, frame: Frame):
        handler = getattr(self, "eval_" + type(node).__name__, None)
        if handler is None:
            message, hint = unsupported_syntax(node) or (
                f"{type(node).__name__} expressions are not supported in a compiled function", None)
            raise UnsupportedSyntaxError(message, self.loc(node, frame), hint)
        try:
            return handler(node, frame)
        except AstjaxError as e:
            raise e.at(self.loc(node, frame)) from e.__cause__
        except PYTHON_ERRORS as e:  # not from a user_op (which reports its own): astjax's bug
            raise self.internal_error(e, node, frame) from e

    def apply(self, fn, args, node, frame, kwargs=None):
        """fn(*args) at the user's node: primitives it records point at this line."""
        self.set_loc(node, frame)
        return self.user_op(fn, args, node, frame, kwargs)

    def user_op(self, fn, args, node, frame, kwargs=None):
        """fn(*args, **kwargs), an operation the user wrote at `node` on the user's values:
        Python's errors from it are the user's mistake, reported at node."""
        try:
            return fn(*args, **(kwargs or {}))
        except PYTHON_ERRORS as e:
            raise AstjaxError(f"{type(e).__name__}: {e}", self.loc(node, frame)) from e

    def truth(self, value, node, frame) -> bool:
        """bool(value) of a static value the user tests (if, while, and, not, ...)."""
        return self.user_op(bool, (value,), node, frame)

    def iterate(self, value, node, frame):
        """The items of a static value the user iterates (for, *value, comprehensions), one at
        a time, as Python iterates (a long static range is never built as a list)."""
        iterator = self.user_op(iter, (value,), node, frame)
        while True:
            try:
                item = self.user_op(next, (iterator,), node, frame)
            except StopIteration:
                return
            yield item

    def internal_error(self, error: Exception, node, frame) -> InternalError:
        loc = self.loc(node, frame)
        return InternalError(error, loc if loc is not None else frame.function.__name__)

    # ------------------------------------------------------------ atoms
    def eval_Name(self, node: cst.Name, frame):
        return self.names.lookup(node.value, frame, node)

    def eval_Integer(self, node, frame):
        return ast.literal_eval(node.value)

    eval_Float = eval_Imaginary = eval_Integer

    def eval_SimpleString(self, node, frame):
        return node.evaluated_value

    def eval_ConcatenatedString(self, node, frame):
        return node.evaluated_value

    def eval_FormattedString(self, node: cst.FormattedString, frame):
        parts = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                parts.append(part.value)
                continue
            value = self.eval(part.expression, frame)
            spec = "" if part.format_spec is None else "".join(
                p.value for p in part.format_spec if isinstance(p, cst.FormattedStringText))
            parts.append(self.user_op(format, (value, spec), node, frame))
        return "".join(parts)

    def eval_Ellipsis(self, node, frame):
        return Ellipsis

    def eval_Attribute(self, node: cst.Attribute, frame):
        value = self.eval(node.value, frame)
        name = node.attr.value
        if isinstance(value, types.ModuleType) and not hasattr(value, name):
            raise AstjaxError(f"{value.__name__}.{name} is not available in astjax",
                              self.loc(node.attr, frame),
                              hint="see astjax.numpy / astjax.lax for what is supported")
        result = self.user_op(getattr, (value, name), node, frame)
        if isinstance(value, types.ModuleType):
            if resolve.is_array_input(result):
                return self.names.outer_value(vars(value), name, result, (id(vars(value)), name))
            # (what a module or class held when this was compiled: the disk cache reads it
            # again before it trusts an entry)
            self.names.context.attribute_reads[("module", value.__name__, name)] = result
            return _callable_value(self, result)
        if isinstance(value, type) and not _held_array(result):
            self.names.context.attribute_reads[("class", value.__module__, value.__qualname__,
                                             name)] = result
        if not isinstance(value, Var) and _held_array(result):
            # an array held by an object (a namedtuple, a dataclass): an input, read afresh
            return self.names.outer_value(_Attributes(value), name, result,
                                          (id(value), "attr", name))
        return _callable_value(self, result)

    # ------------------------------------------------------------ containers
    def eval_Tuple(self, node, frame):
        return tuple(self._elements(node, frame))

    def eval_List(self, node, frame):
        return list(self._elements(node, frame))

    def eval_Set(self, node, frame):
        return self.user_op(set, (list(self._elements(node, frame)),), node, frame)  # hashes

    def _elements(self, node, frame):
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                yield from self.iterate(self.eval(el.value, frame), node, frame)
            else:
                yield self.eval(el.value, frame)

    def eval_Dict(self, node: cst.Dict, frame):
        out = {}
        for el in node.elements:
            if isinstance(el, cst.StarredDictElement):
                self.user_op(out.update, (self.eval(el.value, frame),), node, frame)
            else:
                key, value = self.eval(el.key, frame), self.eval(el.value, frame)
                self.user_op(operator.setitem, (out, key, value), node, frame)
        return out

    # ------------------------------------------------------------ operators
    def eval_BinaryOperation(self, node, frame):
        left, right = self.eval(node.left, frame), self.eval(node.right, frame)
        return self.apply(_BINARY[type(node.operator)], (left, right), node, frame)

    def eval_UnaryOperation(self, node, frame):
        value = self.eval(node.expression, frame)
        if isinstance(node.operator, cst.Not):
            return self.logical_not(value, node, frame)
        return self.apply(_UNARY[type(node.operator)], (value,), node, frame)

    def logical_not(self, value, node, frame):
        if not isinstance(value, Var):
            return not self.truth(value, node, frame)
        import astjax.numpy as jnp
        return self.apply(jnp.logical_not, (value,), node, frame)

    def eval_BooleanOperation(self, node: cst.BooleanOperation, frame):
        left = self.eval(node.left, frame)
        is_and = isinstance(node.operator, cst.And)
        if not isinstance(left, Var):  # Python's short circuit on a static value
            if self.truth(left, node, frame) != is_and:
                return left
            return self.eval(node.right, frame)
        right = self.eval(node.right, frame)
        import astjax.numpy as jnp
        fn = jnp.logical_and if is_and else jnp.logical_or
        return self.apply(fn, (left, right), node, frame)

    def eval_Comparison(self, node: cst.Comparison, frame):
        left = self.eval(node.left, frame)
        result = None
        for target in node.comparisons:
            right = self.eval(target.comparator, frame)
            value = self.apply(_COMPARE[type(target.operator)], (left, right), node, frame)
            result = value if result is None else self._and(result, value, node, frame)
            if result is False:
                return False
            left = right
        return result

    def _and(self, a, b, node, frame):
        if not isinstance(a, Var) and not isinstance(b, Var):
            return b if self.truth(a, node, frame) else a  # Python's `a and b`
        import astjax.numpy as jnp
        return self.apply(jnp.logical_and, (a, b), node, frame)

    def eval_IfExp(self, node: cst.IfExp, frame):
        test = self.eval(node.test, frame)
        if not isinstance(test, Var):
            return self.eval(node.body if self.truth(test, node, frame) else node.orelse, frame)
        body, orelse = self.eval(node.body, frame), self.eval(node.orelse, frame)
        import astjax.numpy as jnp
        return self.apply(jnp.where, (test, body, orelse), node, frame)

    def eval_NamedExpr(self, node: cst.NamedExpr, frame):
        value = self.eval(node.value, frame)
        self.assign(node.target, value, frame)
        return value

    # ------------------------------------------------------------ indexing
    def eval_Subscript(self, node: cst.Subscript, frame):
        value = self.eval(node.value, frame)
        index = self.eval_index(node, frame)
        if isinstance(value, (dict, list, tuple)) and isinstance(index, (str, int)):
            item = self.user_op(operator.getitem, (value, index), node, frame)
            if _held_array(item):  # an array held by a container: an input too
                return self.names.outer_value(value, index, item, (id(value), "item", index))
        return self.apply(operator.getitem, (value, index), node, frame)

    def eval_index(self, node: cst.Subscript, frame):
        items = [self._index_item(el.slice, frame) for el in node.slice]
        if len(items) == 1 and not _has_trailing_comma(node):
            return items[0]
        return tuple(items)

    def _index_item(self, item, frame):
        if isinstance(item, cst.Index):
            return self.eval(item.value, frame)
        part = lambda e: None if e is None else self.eval(e, frame)  # noqa: E731
        return slice(part(item.lower), part(item.upper), part(item.step))

    # ------------------------------------------------------------ functions
    def eval_Lambda(self, node, frame):
        return self.make_closure(node, frame)

    def eval_Call(self, node: cst.Call, frame):
        fn = self.eval(node.func, frame)
        args, kwargs = [], {}
        for arg in node.args:
            value = self.eval(arg.value, frame)
            if arg.star == "*":
                args.extend(self.iterate(value, node, frame))
            elif arg.star == "**":
                self.user_op(kwargs.update, (value,), node, frame)
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        return self.call(fn, args, kwargs, node, frame)

    def call(self, fn, args, kwargs, node, frame):
        if isinstance(fn, UserFunction):
            return fn(*args, **kwargs)
        if isinstance(fn, functools.partial):
            inner = _callable_value(self, fn.func)
            return self.call(inner, list(fn.args) + list(args), {**fn.keywords, **kwargs},
                             node, frame)
        self._check_pure_call(fn, node, frame)
        args = [_callable_value(self, a) for a in args]
        kwargs = {k: _callable_value(self, v) for k, v in kwargs.items()}
        if _is_opaque(fn) and _has_var((args, kwargs)):
            raise resolve.non_array_function_error(fn, _callable_name(node)).at(
                self.loc(node, frame))
        return self.apply(fn, args, node, frame, kwargs)

    def _check_pure_call(self, fn, node, frame):
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "")
        if name in MUTATING_METHODS and isinstance(owner, (list, dict, set)) \
                and not self._is_local_container(owner, frame):
            # one the fence could not see: reached through an expression (`get().append(v)`)
            raise ImpurityError(method_mutation(name, "a list/dict/set the function does not own"),
                                self.loc(node, frame), hint=NOT_OWNED_CONTAINER_HINT)

    def _is_local_container(self, owner, frame) -> bool:
        return any(v is owner for v in frame.env.values())

    # ------------------------------------------------------------ comprehensions
    def eval_ListComp(self, node, frame):
        return list(self._comprehend(node, frame, lambda f: self.eval(node.elt, f)))

    def eval_SetComp(self, node, frame):
        elements = list(self._comprehend(node, frame, lambda f: self.eval(node.elt, f)))
        return self.user_op(set, (elements,), node, frame)  # hashes the user's values

    def eval_GeneratorExp(self, node, frame):
        return iter(list(self._comprehend(node, frame, lambda f: self.eval(node.elt, f))))

    def eval_DictComp(self, node, frame):
        items = list(self._comprehend(node, frame,
                                      lambda f: (self.eval(node.key, f), self.eval(node.value, f))))
        return self.user_op(dict, (items,), node, frame)  # hashes the user's keys

    def _comprehend(self, node, frame, element):
        yield from self._for_clauses(node.for_in, frame.for_comprehension(), element)

    def _for_clauses(self, clause: cst.CompFor, frame, element):
        iterable = self.eval(clause.iter, frame)
        if isinstance(iterable, Var) and iterable.ndim == 0:
            raise ConcretizationError("iteration over a 0-d array", self.loc(clause.iter, frame))
        for value in self.iterate(iterable, clause.iter, frame):
            self.assign(clause.target, value, frame)
            if all(self._static_truth(self.eval(c.test, frame), c, frame) for c in clause.ifs):
                if clause.inner_for_in is None:
                    yield element(frame)
                else:
                    yield from self._for_clauses(clause.inner_for_in, frame, element)

    def _static_truth(self, value, node, frame) -> bool:
        if isinstance(value, Var):
            raise ConcretizationError("a comprehension filter on an array value",
                                      self.loc(node, frame), hint="use jnp.where to select")
        return self.truth(value, node, frame)


def _callable_value(interp, value):
    """User functions are interpreted, never called: wrap them wherever they appear."""
    if resolve.is_user_function(value):
        return interp.user_function(value)
    method = resolve.user_call_method(value)
    if method is not None:
        return interp.user_function(method)
    return resolve.translate(value) if isinstance(value, types.ModuleType) or callable(value) \
        else value


def _is_opaque(fn) -> bool:
    """A callable outside astjax that cannot take abstract arrays (math.sin, float, ...)."""
    if isinstance(fn, type):
        return fn in (float, int, complex, bool) or issubclass(fn, np.generic)
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("astjax"):
        return False
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (list, dict, tuple, set)):
        return False
    return module in ("math", "cmath", "random", "statistics") or \
        isinstance(fn, np.ufunc) or module.startswith(("numpy", "scipy"))


def _has_var(tree) -> bool:
    from ..tree_util import tree_leaves
    return any(isinstance(x, Var) for x in tree_leaves(tree))


def _callable_name(node: cst.Call) -> str:
    return cst.Module([]).code_for_node(node.func)


def _has_trailing_comma(node: cst.Subscript) -> bool:
    last = node.slice[-1]
    return isinstance(last.comma, cst.Comma)


def _held_array(value) -> bool:
    """A concrete array (not an abstract value of the function being compiled)."""
    return not isinstance(value, Var) and resolve.is_array_input(value)


class _Attributes:
    """An object's attributes read by name (`view[name]`), as the compiled function reads an
    array held by the object at every call."""
    __slots__ = ("owner",)

    def __init__(self, owner):
        self.owner = owner

    def __getitem__(self, name):
        return getattr(self.owner, name)
