"""Python `if`/`while`/`for` in the interpreter (`ControlFlowMixin`, a base of `Interpreter`):
run as Python when the condition or the iterable is static, converted to lax.cond / while_loop /
scan when it is an array value.

A converted statement outputs exactly the variables assigned in it that exist before it or are
read after it; those defined on only one path are errors naming the variable.
"""
import contextlib

import libcst as cst

from ..core.ir import Var
from ..errors import ControlFlowError
from . import analysis
from .frame import Break, Continue, Frame, Return
from .values import Undefined

MAX_STATIC_ITERATIONS = 100_000


class ControlFlowMixin:
    """Executes if/while/for. The Interpreter it is mixed into provides `eval`, `truth`,
    `iterate`, `exec_block`, `assign`, `loc` and `set_loc`."""

    # ------------------------------------------------------------ if
    def exec_If(self, node: cst.If, frame: Frame):
        test = self.eval(node.test, frame)
        if not isinstance(test, Var):
            branch = node.body.body if self.truth(test, node.test, frame) else \
                _else_body(node.orelse)
            self.exec_block(branch, frame)
            return
        self.set_loc(node.test, frame)
        self._convert_if(node, test, frame)

    def _convert_if(self, node: cst.If, pred, frame):
        import astjax.control as control
        orelse = _else_body(node.orelse)
        names = self._outputs(node, list(node.body.body) + list(orelse), frame)

        def branch(statements):
            def run():
                with _body_env(frame):
                    self._exec_converted(statements, frame, node)
                    return self._output_values(names, frame, node)
            return run

        self._check_scalar(pred, node.test, frame)
        results = control.cond(pred, branch(node.body.body), branch(orelse))
        self._bind_results(names, results, frame)

    def _outputs(self, node, statements, frame) -> list:
        assigned = analysis.assigned_names(statements)
        function = frame.function.node
        read_after = analysis.read_outside(assigned, node, function, frame.file.contexts)
        return [n for n in assigned
                if n in read_after or (n in frame.env and not isinstance(frame.env[n], Undefined))]

    def _output_value(self, name, frame, node):
        value = frame.env.get(name, Undefined(name))
        if isinstance(value, Undefined):
            use = analysis.first_read_after(name, node, frame.function.node,
                                            frame.file.contexts, frame.file.positions)
            at = self.loc(node, frame)
            if use is None or self.loc(use, frame) is None:
                raise ControlFlowError(
                    f"{name!r} is assigned on only some paths of this if on an array value, "
                    "and used after it", at, hint=f"assign {name} before the if (or in every "
                    "branch)")
            raise ControlFlowError(
                f"{name!r} is used here, but the if on an array value at line {at.line} "
                f"assigns it on only some of its paths", self.loc(use, frame),
                hint=f"assign {name} before the if at line {at.line} (or in every branch)")
        return value

    def _output_values(self, names, frame, node) -> tuple:
        return tuple(self._output_value(n, frame, node) for n in names)

    def _bind_results(self, names, values, frame):
        for name, value in zip(names, values):
            self._bind_result(name, value, frame)

    def _bind_result(self, name, value, frame):
        from ..tree_util import leaf_paths, tree_leaves
        for leaf, path in zip(tree_leaves(value), leaf_paths(value)):
            if isinstance(leaf, Var) and not leaf.hint:
                leaf.hint = f"{name}_{path}" if path else name
        frame.env[name] = value

    def _exec_converted(self, statements, frame, node):
        try:
            self.exec_block(statements, frame)
        except (Return, Break, Continue) as e:
            word = {"Return": "return", "Break": "break", "Continue": "continue"}[type(e).__name__]
            raise ControlFlowError(f"{word} inside an if or loop on an array value is not "
                                   "supported yet", self.loc(node, frame),
                                   hint="assign the result to a variable and return it at the end")

    def _check_scalar(self, pred, test_node, frame):
        if pred.shape != ():
            raise ControlFlowError(
                f"the condition is an array of shape {pred.shape}; it must be a scalar",
                self.loc(test_node, frame),
                hint="reduce it with jnp.any(...) / jnp.all(...), or select elementwise "
                     "with jnp.where(cond, a, b)")

    # ------------------------------------------------------------ while
    def exec_While(self, node: cst.While, frame: Frame):
        for _ in range(MAX_STATIC_ITERATIONS):
            test = self.eval(node.test, frame)
            if isinstance(test, Var):
                self.set_loc(node.test, frame)
                self._convert_while(node, frame)
                self.exec_block(_else_body(node.orelse), frame)  # (no break left: see exec_For)
                return
            if not self.truth(test, node.test, frame):
                self.exec_block(_else_body(node.orelse), frame)
                return
            if not self._static_iteration(node, frame):
                return
        raise ControlFlowError(f"a while loop on static values ran {MAX_STATIC_ITERATIONS} times",
                               self.loc(node, frame), hint="is its condition ever false?")

    def _convert_while(self, node: cst.While, frame):
        import astjax.control as control
        names = self._carried(node, node.body.body, frame)

        def cond_fun(carry):
            with _body_env(frame, names, carry):
                return self._loop_test(node, frame)

        def body_fun(carry):
            with _body_env(frame, names, carry):
                self._exec_converted(node.body.body, frame, node)
                return self._output_values(names, frame, node)

        init = tuple(frame.env[n] for n in names)
        with self._carry_errors(node, names, frame):
            results = control.while_loop(cond_fun, body_fun, init, names=list(names))
        self._bind_results(names, results, frame)

    def _loop_test(self, node, frame):
        test = self.eval(node.test, frame)
        if isinstance(test, Var):
            self._check_scalar(test, node.test, frame)
        return test

    def _carried(self, node, statements, frame) -> list:
        assigned = analysis.assigned_names(statements)
        function = frame.function.node
        read_after = analysis.read_outside(assigned, node, function, frame.file.contexts)
        carried = []
        for n in assigned:
            defined = n in frame.env and not isinstance(frame.env[n], Undefined)
            if defined:
                carried.append(n)
            elif n in read_after:
                raise ControlFlowError(
                    f"{n!r} is first assigned inside a loop on array values and used after it",
                    self.loc(node, frame),
                    hint=f"give {n} an initial value before the loop (the loop may run 0 times)")
        return carried

    # ------------------------------------------------------------ for
    def exec_For(self, node: cst.For, frame: Frame):
        iterable = self.eval(node.iter, frame)
        if self._convert_for(node, iterable, frame):
            # a loop with a break had its else clause moved behind the flag by the rewriters,
            # so an else clause still here runs whenever the loop ends
            self.exec_block(_else_body(node.orelse), frame)
            return
        for value in self.iterate(iterable, node.iter, frame):
            self.assign(node.target, value, frame)
            if not self._static_iteration(node, frame):
                return
        self.exec_block(_else_body(node.orelse), frame)

    def _static_iteration(self, node, frame) -> bool:
        """One pass of a static loop's body; False if it breaks out. (The rewriters turn
        break/continue into flags, so these exceptions only come from unrewritten code.)"""
        try:
            self.exec_block(node.body.body, frame)
        except Break:
            return False
        except Continue:
            pass
        return True

    def _convert_for(self, node: cst.For, iterable, frame) -> bool:
        """Convert a for over array values to a scan or while_loop; False if it is static."""
        if isinstance(iterable, Var):
            self.set_loc(node.iter, frame)
            self._convert_for_array(node, iterable, frame)
        elif isinstance(iterable, _DynamicRange):
            self._convert_for_range(node, iterable, frame)
        elif isinstance(iterable, ArrayIteration) and iterable.converts():
            self.set_loc(node.iter, frame)
            if iterable.with_index:
                self._convert_for_array(node, iterable.arrays[0], frame, counter=iterable.start)
            else:
                self._convert_for_array(node, iterable.stacked(), frame, iterable.item)
        else:
            return False
        return True

    def _convert_for_array(self, node: cst.For, xs, frame, item=lambda x: x, counter=None):
        """for row in xs (an array) -> lax.scan over its leading axis; `item` makes the loop
        variable's value from the scanned slices (zip over arrays). With `counter` (an int
        start: enumerate), the index is carried as a Python int, weakly typed as eagerly."""
        import astjax.control as control
        if isinstance(xs, Var) and xs.ndim == 0:
            raise ControlFlowError("iteration over a 0-d array", self.loc(node.iter, frame))
        names = self._carried(node, node.body.body, frame)
        counted = counter is not None

        def step(carry, x):
            index, carry = (carry[0], carry[1:]) if counted else (None, carry)
            with _body_env(frame, names, carry):
                self.assign(node.target, (index, x) if counted else item(x), frame)
                self._exec_converted(node.body.body, frame, node)
                out = self._output_values(names, frame, node)
                return ((index + 1,) + out if counted else out), None

        init = ((counter,) if counted else ()) + tuple(frame.env[n] for n in names)
        carry_names = (["index"] if counted else []) + list(names)
        with self._carry_errors(node, names, frame):
            results, _ = control.scan(step, init, xs, names=carry_names,
                                      x_names=_target_names(node.target)[1:] if counted
                                      else _target_names(node.target))
        self._bind_results(names, results[1:] if counted else results, frame)

    def _convert_for_range(self, node, rng, frame):
        """for i in range(a, b) with array bounds -> lax.while_loop over a counter."""
        import astjax.control as control
        names = self._carried(node, node.body.body, frame)

        def body(i, carry):
            with _body_env(frame, names, carry):
                self.assign(node.target, i, frame)
                self._exec_converted(node.body.body, frame, node)
                return self._output_values(names, frame, node)

        init = tuple(frame.env[n] for n in names)
        with self._carry_errors(node, names, frame):
            results = control.fori_loop(rng.start, rng.stop, body, init)
        self._bind_results(names, results, frame)

    @contextlib.contextmanager
    def _carry_errors(self, node, names, frame):
        """A carried value that changes shape or dtype is reported at the assignment that
        changes it, naming the loop's line."""
        try:
            yield
        except ControlFlowError as e:
            carried = getattr(e, "carried", None)
            name = next((n for n in names if carried == n or
                         str(carried).startswith(n + "_")), None)
            target = None if name is None else analysis.last_assignment(
                name, node.body, frame.file.contexts, frame.file.positions)
            if target is None or self.loc(target, frame) is None:
                raise
            loop_line = self.loc(node, frame).line
            raise ControlFlowError(f"{e.message} here, in the loop at line {loop_line}",
                                   self.loc(target, frame), hint=e.hint) from None


class ArrayIteration:
    """enumerate(...) / zip(...) over arrays, as compiled code sees them: a `for` over one is
    converted to a scan; anywhere else it iterates like Python (one slice per step)."""

    def __init__(self, arrays, with_index: bool, start: int = 0):
        self.arrays, self.with_index, self.start = list(arrays), with_index, start

    def converts(self) -> bool:
        return all(isinstance(a, Var) and a.ndim > 0 for a in self.arrays)

    def stacked(self):
        n = self.arrays[0].shape[0]
        for a in self.arrays[1:]:
            if a.shape[0] != n:
                raise ControlFlowError(f"zip over arrays of lengths {n} and {a.shape[0]}")
        return tuple(self.arrays)

    def item(self, slices):
        return tuple(slices)

    def __iter__(self):
        rows = zip(*self.arrays)
        if self.with_index:
            return ((self.start + i, row[0]) for i, row in enumerate(rows))
        return iter(rows)


def _target_names(target) -> list:
    """The loop variable names of `for <target> in ...` (for readable scan parameters)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [_target_names(e.value) for e in target.elements]
        return [n for group in names for n in group] if all(names) else []
    return []


def make_enumerate(iterable, start=0):
    if isinstance(iterable, Var):
        return ArrayIteration([iterable], with_index=True, start=start)
    return enumerate(iterable, start)


def make_zip(*iterables):
    if iterables and any(isinstance(x, Var) for x in iterables):
        return ArrayIteration(iterables, with_index=False)
    return zip(*iterables)


class _DynamicRange:
    """range(a, b) where a bound is an array value (made by the `range` builtin stand-in)."""

    def __init__(self, start, stop):
        self.start, self.stop = start, stop


def make_range(*args):
    """`range` as compiled code sees it: Python's, unless a bound is an array value."""
    if not any(isinstance(a, Var) for a in args):
        return range(*[int(a) for a in args])
    if len(args) == 1:
        return _DynamicRange(0, args[0])
    if len(args) == 2:
        return _DynamicRange(args[0], args[1])
    raise ControlFlowError("range() with a step and array bounds is not supported yet",
                           hint="loop with a while on a counter")


@contextlib.contextmanager
def _body_env(frame, names=(), carry=()):
    """While a branch or loop body is run for conversion: `names` bound to `carry`, and the
    frame's env restored afterwards. The body gets its own copies of the lists and dicts it
    can see, so an item it assigns (`out[0] = v`) changes only what the body returns, never
    the caller's container."""
    saved = dict(frame.env)
    frame.env = {k: _copy_containers(v) for k, v in saved.items()}
    frame.env.update(zip(names, carry))
    try:
        yield
    finally:
        frame.env = saved


def _copy_containers(value):
    if isinstance(value, list):
        return [_copy_containers(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy_containers(v) for k, v in value.items()}
    return value


def _else_body(orelse):
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):
        return [orelse]
    return orelse.body.body
