"""Expression evaluation for the interpreter: names, literals, operators, calls, indexing."""
import ast
import functools
import operator
import types

import libcst as cst
import numpy as np

from ..core.ir import Var
from ..errors import AstjaxError, ConcretizationError, ImpurityError, UnsupportedSyntaxError
from . import resolve
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
_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update",
                     "setdefault", "popitem", "add", "discard", "sort", "reverse"}
_USER_ERRORS = (TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError,
                OverflowError, NotImplementedError)


class ExpressionsMixin:
    def eval(self, node, frame):
        handler = getattr(self, "eval_" + type(node).__name__, None)
        if handler is None:
            raise UnsupportedSyntaxError(f"{type(node).__name__} expressions are not supported "
                                         "in a compiled function", self.loc(node, frame))
        try:
            return handler(node, frame)
        except AstjaxError as e:
            raise e.at(self.loc(node, frame)) from e.__cause__
        except _USER_ERRORS as e:
            raise AstjaxError(f"{type(e).__name__}: {e}", self.loc(node, frame)) from e

    def apply(self, fn, args, node, frame, kwargs=None):
        """fn(*args) at the user's node: primitives it records point at this line."""
        self.set_loc(node, frame)
        return fn(*args, **(kwargs or {}))

    # ------------------------------------------------------------ atoms
    def eval_Name(self, node: cst.Name, frame):
        return self.lookup(node.value, frame, node)

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
            parts.append(format(value, spec))
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
        result = getattr(value, name)
        if isinstance(value, types.ModuleType):
            return self._outer_value(vars(value), name, result, (id(vars(value)), name)) \
                if resolve.is_array_input(result) else _callable_value(self, result)
        if not isinstance(value, Var) and _held_array(result):
            # an array held by an object (a namedtuple, a dataclass): an input, read afresh
            return self._outer_value(_Attributes(value), name, result, (id(value), "attr", name))
        return _callable_value(self, result)

    # ------------------------------------------------------------ containers
    def eval_Tuple(self, node, frame):
        return tuple(self._elements(node.elements, frame))

    def eval_List(self, node, frame):
        return list(self._elements(node.elements, frame))

    def eval_Set(self, node, frame):
        return set(self._elements(node.elements, frame))

    def _elements(self, elements, frame):
        for el in elements:
            if isinstance(el, cst.StarredElement):
                yield from self.eval(el.value, frame)
            else:
                yield self.eval(el.value, frame)

    def eval_Dict(self, node: cst.Dict, frame):
        out = {}
        for el in node.elements:
            if isinstance(el, cst.StarredDictElement):
                out.update(self.eval(el.value, frame))
            else:
                out[self.eval(el.key, frame)] = self.eval(el.value, frame)
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
            return not value
        import astjax.numpy as jnp
        return self.apply(jnp.logical_not, (value,), node, frame)

    def eval_BooleanOperation(self, node: cst.BooleanOperation, frame):
        left = self.eval(node.left, frame)
        is_and = isinstance(node.operator, cst.And)
        if not isinstance(left, Var):  # Python's short circuit on a static value
            if bool(left) != is_and:
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
            return a and b
        import astjax.numpy as jnp
        return self.apply(jnp.logical_and, (a, b), node, frame)

    def eval_IfExp(self, node: cst.IfExp, frame):
        test = self.eval(node.test, frame)
        if not isinstance(test, Var):
            return self.eval(node.body if test else node.orelse, frame)
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
            item = value[index]
            if _held_array(item):  # an array held by a container: an input too
                return self._outer_value(value, index, item, (id(value), "item", index))
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
                args.extend(value)
            elif arg.star == "**":
                kwargs.update(value)
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
        if name in _MUTATING_METHODS and isinstance(owner, (list, dict, set)) \
                and not self._is_local_container(owner, frame):
            raise ImpurityError(f".{name}() on a list/dict/set that the function does not own",
                                self.loc(node, frame),
                                hint="build a new container (e.g. xs + [v]) and return it")

    def _is_local_container(self, owner, frame) -> bool:
        return any(v is owner for v in frame.env.values())

    # ------------------------------------------------------------ comprehensions
    def eval_ListComp(self, node, frame):
        return list(self._comprehend(node, frame, lambda f: self.eval(node.elt, f)))

    def eval_SetComp(self, node, frame):
        return set(self._comprehend(node, frame, lambda f: self.eval(node.elt, f)))

    def eval_GeneratorExp(self, node, frame):
        return iter(list(self._comprehend(node, frame, lambda f: self.eval(node.elt, f))))

    def eval_DictComp(self, node, frame):
        return dict(self._comprehend(node, frame,
                                     lambda f: (self.eval(node.key, f), self.eval(node.value, f))))

    def _comprehend(self, node, frame, element):
        from .interpreter import Frame
        inner = Frame(frame.function)
        inner.env = dict(frame.env)
        yield from self._for_clauses(node.for_in, inner, element)

    def _for_clauses(self, clause: cst.CompFor, frame, element):
        iterable = self.eval(clause.iter, frame)
        if isinstance(iterable, Var) and iterable.ndim == 0:
            raise ConcretizationError("iteration over a 0-d array", self.loc(clause.iter, frame))
        for value in iterable:
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
        return bool(value)


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
