"""Evaluates a user function's source abstractly, emitting core form.

User code is never executed: this walks its libcst tree. Python values that are known at
compile time (ints, shapes, tuples, static arguments) are computed as Python computes them, so
control flow on them is specialised away; array values are `Var`s, and every operation on them
goes through astjax's library, which records primitives. `if`/`while`/`for` on array values
become cond/while_loop/scan (see `pyflow.py`). Errors carry the user's file:line:col.

`Interpreter` is made of this file (calls, statements, assignment), `expressions.py` and
`pyflow.py`; names are looked up by its `resolve.Names`, frames are `frame.Frame`s.
"""
import contextlib
import importlib
import inspect
import operator
import threading
import types

import libcst as cst

from .. import numpy as _numpy  # noqa: F401  (its import gives Vars their operators, Var.ops)
from ..core.bind import current_builder
from ..core.ir import MISSING, Var
from ..errors import AstjaxError, ConcretizationError, ImpurityError, SourceLoc, UnsupportedSyntaxError
from ..tree_util import tree_flatten
from . import resolve
from .check import attribute_assignment, check_function, rebinding_problem, unsupported_syntax
from .expressions import PYTHON_ERRORS, ExpressionsMixin
from .frame import Break, Continue, Frame, Return
from .pyflow import ControlFlowMixin
from .source import FunctionSource, function_source, rewritten
from .values import Undefined, UserFunction

MAX_RECURSION = 40  # unrolled levels of one function (each costs Python stack while compiling)


class Context:
    """What one specialisation learns: globals read (to detect stale caches) and array inputs
    read from globals or closures."""

    def __init__(self):
        self.dependencies: dict = {}   # (id(namespace), name) -> (namespace, name, value)
        self.implicit: dict = {}       # (id(namespace), name) -> (namespace, name, Var)
        # ("module", name, attribute) or ("class", module, qualname, attribute) -> the value
        self.attribute_reads: dict = {}
        self.call_stack: list = []


_local = threading.local()  # each thread specialises on its own


def _active() -> list:
    if not hasattr(_local, "active"):
        _local.active = []
    return _local.active


def active_interpreter():
    """The interpreter of the specialisation under way in this thread; outside one, a new
    standalone interpreter.

    Standalone ones are intended: eval_shape, make_jaxpr and custom_gradient stage a function
    (staging.func_of) without specialising it, and a module-level def (static_module) may be
    called while a standalone interpreter evaluates its caller. A standalone interpreter has
    its own Context, which no specialisation reads: arrays it reads from outside are Vars
    that the staged body captures as free variables (core.closure.free_vars)."""
    active = _active()
    return active[-1] if active else Interpreter()


def as_interpretable(fn):
    """A callable safe to call on abstract values: user functions are interpreted, not run."""
    if resolve.is_user_function(fn):
        return active_interpreter().user_function(fn)
    method = resolve.user_call_method(fn)
    return active_interpreter().user_function(method) if method is not None else fn


class Interpreter(ExpressionsMixin, ControlFlowMixin):
    """Evaluates user functions abstractly for one specialisation (`context`). Entered (`with`),
    it is this thread's active interpreter, which user functions met by library code use."""

    def __init__(self, context: Context = None):
        self.context = context or Context()
        self.names = resolve.Names(self.context, self.user_function)

    def __enter__(self):
        _active().append(self)
        return self

    def __exit__(self, *exc):
        _active().pop()

    # ------------------------------------------------------------ functions
    def user_function(self, fn) -> UserFunction:
        """A Python function (or bound method) from user code, to be interpreted."""
        bound, python = None, fn
        if isinstance(fn, types.MethodType):
            fn, bound = fn.__func__, fn.__self__
        cells = {}
        if fn.__closure__:
            cells = dict(zip(fn.__code__.co_freevars, fn.__closure__))
        source = function_source(fn)
        try:
            check_function(source)
        except AstjaxError as error:  # (raised if it is interpreted: a host call runs it)
            return UserFunction(source, fn.__globals__, None, cells, _python_defaults(fn),
                                self, bound, python, problem=error)
        return UserFunction(rewritten(source), fn.__globals__, None, cells,
                            _python_defaults(fn), self, bound, python)

    def call_user(self, fn: UserFunction, args, kwargs):
        if fn.problem is not None:
            raise type(fn.problem)(fn.problem.message, fn.problem.loc, fn.problem.hint)
        call = (id(fn.node), _static_key((args, kwargs)))
        self._check_recursion(fn, call)
        frame = Frame(fn)
        if fn.bound_self is not None:
            args = (fn.bound_self,) + tuple(args)
        self.bind_arguments(frame, fn.node.params, args, kwargs)
        self.context.call_stack.append(call)
        try:
            return self.run_body(frame)
        finally:
            self.context.call_stack.pop()

    def _check_recursion(self, fn: UserFunction, call):
        """Recursion is unrolled, as JAX runs it, while static arguments bound it: a call
        repeating an active call's static arguments could only stop on array values, and
        depth past MAX_RECURSION is refused too."""
        if call in self.context.call_stack:
            raise ConcretizationError(
                f"{fn.__name__} calls itself with the same static arguments: the recursion "
                "could only stop on array values, which are known when the function runs",
                hint="bound the recursion by a static argument (a Python int), or write it as "
                     "a lax.while_loop or lax.fori_loop")
        depth = sum(1 for node, _ in self.context.call_stack if node == call[0])
        if depth >= MAX_RECURSION:
            raise ConcretizationError(
                f"{fn.__name__} recursed {MAX_RECURSION} deep while compiling (it is unrolled)",
                hint="write deep recursion as a lax.while_loop or lax.fori_loop")

    def run_body(self, frame: Frame):
        node = frame.function.node
        if isinstance(node, cst.Lambda):
            return self.eval(node.body, frame)
        try:
            self.exec_block(node.body.body, frame)
        except Return as r:
            return None if _is_missing(r.value) else r.value
        return None

    def bind_arguments(self, frame, params: cst.Parameters, args, kwargs):
        args, kwargs = list(args), dict(kwargs)
        for p in list(params.posonly_params) + list(params.params):
            value = args.pop(0) if args else _keyword_or_default(frame, p.name.value, kwargs)
            frame.env[p.name.value] = value
        if isinstance(params.star_arg, cst.Param):
            frame.env[params.star_arg.name.value] = tuple(args)
            args = []
        if args:
            raise _call_error(frame, f"{len(args)} positional argument(s) too many")
        for p in params.kwonly_params:
            frame.env[p.name.value] = _keyword_or_default(frame, p.name.value, kwargs)
        if params.star_kwarg is not None:
            frame.env[params.star_kwarg.name.value] = kwargs
        elif kwargs:
            raise _call_error(frame, f"unexpected keyword argument(s) {', '.join(kwargs)}")

    def make_closure(self, node, frame: Frame) -> UserFunction:
        """A nested def or lambda, closing over the frame it is defined in."""
        name = node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"
        source = FunctionSource(frame.file, node, name)
        defaults = {}
        params = node.params
        for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params):
            if p.default is not None:
                defaults[p.name.value] = self.eval(p.default, frame)
        return UserFunction(source, frame.function.globals, frame, {}, defaults, self)

    # ------------------------------------------------------------ statements
    def exec_block(self, statements, frame: Frame):
        for stmt in statements:
            self.exec_statement(stmt, frame)

    def exec_statement(self, stmt, frame: Frame):
        try:
            self._exec_statement(stmt, frame)
        except AstjaxError as e:
            raise e.at(self.loc(stmt, frame)) from e.__cause__
        except PYTHON_ERRORS as e:  # not from a user_op (which reports its own): astjax's bug
            raise self.internal_error(e, stmt, frame) from e

    def _exec_statement(self, stmt, frame: Frame):
        self.set_loc(stmt, frame)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.set_loc(small, frame)
                self.exec_small(small, frame)
            return
        self.exec_small(stmt, frame)

    def exec_small(self, node, frame: Frame):
        handler = getattr(self, "exec_" + type(node).__name__, None)
        if handler is None:
            # the fence refuses these first; this is for syntax it lets through
            message, hint = unsupported_syntax(node) or (
                f"{type(node).__name__} is not supported in a compiled function", None)
            raise UnsupportedSyntaxError(message, self.loc(node, frame), hint)
        handler(node, frame)

    def exec_Expr(self, node: cst.Expr, frame):
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            return  # a docstring
        self.eval(node.value, frame)

    def exec_Pass(self, node, frame):
        pass

    def exec_Assign(self, node: cst.Assign, frame):
        value = self.eval(node.value, frame)
        for target in node.targets:
            self.assign(target.target, value, frame)

    def exec_AnnAssign(self, node: cst.AnnAssign, frame):
        if node.value is not None:
            self.assign(node.target, self.eval(node.value, frame), frame)

    def exec_AugAssign(self, node: cst.AugAssign, frame):
        op = _AUG_OPS[type(node.operator)]
        current = self.eval(node.target, frame)
        value = self.apply(op, (current, self.eval(node.value, frame)), node, frame)
        self.assign(node.target, value, frame)

    def exec_With(self, node: cst.With, frame):
        """A with-block runs at compile time as in Python: its managers (jax.named_scope,
        default_matmul_precision, errstate, the user's own) are entered around its body, which
        may hold converted control flow like any other block."""
        with contextlib.ExitStack() as stack:
            for item in node.items:
                manager = self.eval(item.item, frame)
                if not (hasattr(manager, "__enter__") and hasattr(manager, "__exit__")):
                    raise UnsupportedSyntaxError(
                        f"{type(manager).__name__} is not a context manager",
                        self.loc(item.item, frame), "use `with` on a context manager")
                value = stack.enter_context(manager)
                if item.asname is not None:
                    self.assign(item.asname.name, value, frame)
            self.exec_block(node.body.body, frame)

    def exec_Return(self, node: cst.Return, frame):
        raise Return(None if node.value is None else self.eval(node.value, frame))

    def exec_Break(self, node, frame):
        raise Break()

    def exec_Continue(self, node, frame):
        raise Continue()

    def exec_Raise(self, node: cst.Raise, frame):
        exc = self.eval(node.exc, frame) if node.exc is not None else RuntimeError("raise")
        if isinstance(exc, type):
            exc = self.user_op(exc, (), node, frame)
        raise AstjaxError(f"the function raised {type(exc).__name__}: {exc}", self.loc(node, frame))

    def exec_Assert(self, node: cst.Assert, frame):
        test = self.eval(node.test, frame)
        if isinstance(test, Var):
            return  # an assertion on array values cannot be checked at compile time
        if not self.truth(test, node.test, frame):
            msg = self.eval(node.msg, frame) if node.msg is not None else ""
            raise AstjaxError(f"assertion failed: {msg}", self.loc(node, frame))

    def exec_Del(self, node: cst.Del, frame):
        if isinstance(node.target, cst.Name):
            frame.env[node.target.value] = Undefined(node.target.value)

    def exec_Import(self, node: cst.Import, frame):
        for alias in node.names:
            module_name = cst.Module([]).code_for_node(alias.name)
            module = self.user_op(importlib.import_module, (module_name,), node, frame)
            if alias.asname is not None:
                frame.env[alias.asname.name.value] = resolve.translate(module)
            else:
                top = module_name.split(".")[0]
                frame.env[top] = resolve.translate(importlib.import_module(top))

    def exec_ImportFrom(self, node: cst.ImportFrom, frame):
        module_name = cst.Module([]).code_for_node(node.module) if node.module else ""
        if node.relative or isinstance(node.names, cst.ImportStar):
            raise UnsupportedSyntaxError("relative or star imports inside a compiled function",
                                         self.loc(node, frame), hint="import at module level")
        module = resolve.translate(self.user_op(importlib.import_module, (module_name,), node, frame))
        for alias in node.names:
            name = alias.name.value
            target = alias.asname.name.value if alias.asname else name
            frame.env[target] = resolve.translate(self.user_op(getattr, (module, name), alias, frame))

    def exec_Global(self, node, frame):
        self._refuse_rebinding("global", node, frame)

    def exec_Nonlocal(self, node, frame):
        self._refuse_rebinding("nonlocal", node, frame)

    def _refuse_rebinding(self, word: str, node, frame):
        """The fence's refusal, for a function it did not check."""
        message, hint = rebinding_problem(word)
        raise ImpurityError(message, self.loc(node, frame), hint)

    def exec_FunctionDef(self, node: cst.FunctionDef, frame):
        """A nested def binds its closure, its decorators applied (innermost first) as Python
        applies them: `@jax.jit`, `@jax.checkpoint`, `@jax.custom_jvp`,
        `@functools.partial(jax.jit, ...)` on a helper work as in JAX."""
        decorators = [self.eval(d.decorator, frame) for d in node.decorators]
        function = self.make_closure(node, frame)
        for decorator, d in zip(reversed(decorators), reversed(node.decorators)):
            self.set_loc(d, frame)
            function = self.call(decorator, [function], {}, d.decorator, frame)
        frame.env[node.name.value] = function

    # ------------------------------------------------------------ assignment
    def assign(self, target, value, frame: Frame):
        if isinstance(target, cst.Name):
            if isinstance(value, Var) and not value.hint and target.value != "_return_value":
                value.hint = target.value  # (the rewriters' return slot names nothing)
            frame.env[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            self._unpack(target, value, frame)
        elif isinstance(target, cst.Subscript):
            self._assign_item(target, value, frame)
        elif isinstance(target, cst.Attribute):  # one the fence does not see (a comprehension's)
            message, hint = attribute_assignment(target)
            raise ImpurityError(message, self.loc(target, frame), hint)
        else:
            raise UnsupportedSyntaxError(f"assignment to {type(target).__name__}",
                                         self.loc(target, frame))

    def _unpack(self, target, value, frame):
        elements = target.elements
        try:
            values = list(value)
        except TypeError:
            raise ConcretizationError(f"cannot unpack {type(value).__name__}",
                                      self.loc(target, frame)) from None
        star = [i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
        if star:
            i = star[0]
            tail = len(elements) - i - 1
            values = values[:i] + [list(values[i:len(values) - tail])] + values[len(values) - tail:]
        if len(values) != len(elements):
            raise AstjaxError(f"cannot unpack {len(values)} values into {len(elements)} names",
                              self.loc(target, frame))
        for element, v in zip(elements, values):
            inner = element.value
            self.assign(inner.value if isinstance(inner, cst.StarredElement) else inner, v, frame)

    def _assign_item(self, target: cst.Subscript, value, frame):
        container = self.eval(target.value, frame)
        index = self.eval_index(target, frame)
        if isinstance(container, (list, dict)):
            self.user_op(operator.setitem, (container, index, value), target, frame)
            return
        if not isinstance(target.value, cst.Name):
            raise ImpurityError("in-place update of an array that is not a local name",
                                self.loc(target, frame), hint="write x = x.at[i].set(v)")
        updated = self.apply(lambda c, i, v: c.at[i].set(v), (container, index, value), target, frame)
        self.assign(target.value, updated, frame)

    # ------------------------------------------------------------ locations
    def loc(self, node, frame: Frame) -> SourceLoc:
        return frame.file.loc(node)

    def set_loc(self, node, frame: Frame):
        builder = current_builder()
        loc = self.loc(node, frame)
        if builder is not None and loc is not None:
            builder.loc = loc


def _is_missing(value) -> bool:
    return value is MISSING


def _python_defaults(fn) -> dict:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in sig.parameters.items() if p.default is not p.empty}


def _static_key(tree) -> tuple:
    """The static part of a call's arguments: its arrays by shape and dtype, other values by
    value (by identity when unhashable)."""
    leaves, structure = tree_flatten(tree)
    key = []
    for leaf in leaves:
        if isinstance(leaf, Var):
            key.append(("array", tuple(leaf.aval.shape), str(leaf.aval.dtype)))
        else:
            try:
                hash(leaf)
                key.append(leaf)
            except TypeError:
                key.append(("object", id(leaf)))
    return (str(structure),) + tuple(key)


def _keyword_or_default(frame, name: str, kwargs: dict):
    if name in kwargs:
        return kwargs.pop(name)
    if name in frame.function.defaults:
        return frame.function.defaults[name]
    raise _call_error(frame, f"missing argument {name!r}")


def _call_error(frame, message):
    return AstjaxError(f"{frame.function.__name__}(): {message}", frame.function.source.loc())


_AUG_OPS = {
    cst.AddAssign: operator.add, cst.SubtractAssign: operator.sub,
    cst.MultiplyAssign: operator.mul, cst.DivideAssign: operator.truediv,
    cst.FloorDivideAssign: operator.floordiv, cst.ModuloAssign: operator.mod,
    cst.PowerAssign: operator.pow, cst.MatrixMultiplyAssign: operator.matmul,
    cst.BitAndAssign: operator.and_, cst.BitOrAssign: operator.or_,
    cst.BitXorAssign: operator.xor, cst.LeftShiftAssign: operator.lshift,
    cst.RightShiftAssign: operator.rshift,
}

