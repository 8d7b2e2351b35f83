"""custom_jvp, custom_vjp and checkpoint, with JAX's decorator API.

    @jax.custom_jvp                          @jax.custom_vjp
    def f(x): ...                            def f(x): ...
    @f.defjvp                                def f_fwd(x): return f(x), residuals
    def f_jvp(primals, tangents):            def f_bwd(residuals, g): return (x_bar,)
        return f(x), t_out                   f.defvjp(f_fwd, f_bwd)

In core form each becomes one primitive holding the function and its rule as nested bodies,
so the rule is used wherever the function is differentiated, in any composition.
"""
import functools

from .core.bind import bind, current_builder
from .core.closure import over_outer, union
from .core.ir import Var
from .errors import TransformError
from .frontend.specialize import function_name
from .staging import func_of, interpretable
from .tree_util import tree_flatten, tree_map, tree_unflatten


class _Custom:
    def __init__(self, fun, nondiff_argnums=()):
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self._building_rule = False  # the rule may call the function itself: plainly, then
        functools.update_wrapper(self, fun, updated=())

    def _plain(self):
        """Run the function itself: outside compilation, or while its own rule is built."""
        return current_builder() is None or self._building_rule

    def _rule_func(self, rule, args: tuple, name: str):
        """func_of for the user's rule, during which calls of this function run plainly."""
        self._building_rule = True
        try:
            return func_of(rule, args, name)
        finally:
            self._building_rule = False

    def _flat(self, args):
        leaves, tree = tree_flatten(tuple(args))
        return leaves, tree

    def _split(self, args: tuple):
        """(the nondiff_argnums' values by position, the other arguments): the first are
        fixed, as closed-over values, in the function and its rules; only the others are
        differentiated (JAX's nondiff_argnums)."""
        fixed = {i % len(args): args[i] for i in self.nondiff_argnums} if args else {}
        return fixed, tuple(a for i, a in enumerate(args) if i not in fixed)

    @staticmethod
    def _merged(fun, fixed: dict):
        """fun taking the differentiated arguments only, the fixed ones put back in place."""
        if not fixed:
            return fun

        def call(*rest):
            rest = list(rest)
            return fun(*[fixed[i] if i in fixed else rest.pop(0)
                         for i in range(len(fixed) + len(rest))])
        return call


class custom_jvp(_Custom):
    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.jvp = None

    def defjvp(self, jvp):
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps):
        """One rule per argument, jvp_i(tangent_i, answer, *primals) -> its part of the
        output's tangent (None: the argument does not move the output); the parts add up."""
        def jvp(primals, tangents):
            answer = interpretable(self.fun)(*primals)
            parts = [rule(t, answer, *primals) for rule, t in zip(jvps, tangents)
                     if rule is not None]
            total = parts[0] if parts else tree_map(lambda a: a * 0, answer)
            for part in parts[1:]:
                total = tree_map(lambda x, y: x + y, total, part)
            return answer, total
        self.jvp = jvp

    def __call__(self, *args):
        if self._plain():
            return interpretable(self.fun)(*args)
        if self.jvp is None:
            raise TransformError(f"custom_jvp function {function_name(self.fun)} has no rule",
                                 hint="define one with @f.defjvp")
        fixed, args = self._split(args)
        name = function_name(self.fun)
        leaves, tree = self._flat(args)
        fun, out_tree, fun_outer = func_of(self._merged(self.fun, fixed), tuple(args), name)
        rule = interpretable(self.jvp)
        jvp, _, rule_outer = self._rule_func(
            lambda *pt: _pair(rule(*fixed.values(), *pt)), (tuple(args), tuple(args)),
            f"{name}_jvp")
        outer = union(fun_outer, rule_outer)
        fun = over_outer(fun, len(leaves), fun_outer, outer)
        jvp = over_outer(jvp, 2 * len(leaves), rule_outer, outer)
        outs = bind("custom_jvp_call", *leaves, *outer, fun=fun, jvp=jvp, num_args=len(leaves))
        return tree_unflatten(out_tree, outs)


def _pair(result):
    out, tangent = result
    return out, tangent


class custom_vjp(_Custom):
    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args):
        if self._plain():
            return interpretable(self.fun)(*args)
        if self.fwd is None:
            raise TransformError(f"custom_vjp function {function_name(self.fun)} has no rule",
                                 hint="define one with f.defvjp(f_fwd, f_bwd)")
        fixed, args = self._split(args)
        leaves, _ = self._flat(args)
        name = function_name(self.fun)
        fun, out_tree, fun_outer = func_of(self._merged(self.fun, fixed), tuple(args), name)
        fwd_call = self._merged(interpretable(self.fwd), fixed)
        fwd, fwd_tree, fwd_outer = self._rule_func(lambda *a: fwd_call(*a), tuple(args),
                                                   f"{name}_fwd")
        res_tree = fwd_tree.children[1]
        res_avals = [v.aval for v in fwd.outs[len(fun.outs):]]
        bwd_call = interpretable(self.bwd)
        residuals = tree_unflatten(res_tree, [Var(a) for a in res_avals])
        cts = tree_unflatten(out_tree, [Var(o.aval) for o in fun.outs])
        bwd, _, bwd_outer = func_of(lambda r, g: tuple(bwd_call(*fixed.values(), r, g)),
                                    (residuals, cts),
                                    f"{name}_bwd")
        outer = union(fun_outer, fwd_outer, bwd_outer)
        fun = over_outer(fun, len(leaves), fun_outer, outer)
        fwd = over_outer(fwd, len(leaves), fwd_outer, outer)
        bwd = over_outer(bwd, len(bwd.params) - len(bwd_outer), bwd_outer, outer)
        outs = bind("custom_vjp_call", *leaves, *outer, fun=fun, fwd=fwd, bwd=bwd,
                    num_args=len(leaves))
        return tree_unflatten(out_tree, outs)


class checkpoint:
    """fun whose intermediates are recomputed during the reverse sweep instead of stored."""

    def __init__(self, fun, **_options):
        self.fun = fun
        self.__name__ = getattr(fun, "__name__", "checkpointed")
        self.__wrapped__ = fun  # for inspect.signature

    def __call__(self, *args):
        if current_builder() is None:
            return interpretable(self.fun)(*args)
        leaves, _ = tree_flatten(tuple(args))
        func, out_tree, outer = func_of(self.fun, tuple(args), self.__name__)
        return tree_unflatten(out_tree, bind("checkpoint", *leaves, *outer, fun=func))


remat = checkpoint


class checkpoint_policies:
    """JAX's names for what a checkpoint may save. astjax's checkpoint recomputes every
    intermediate whatever the policy (a policy changes memory and time, never values), so
    each is accepted and has no effect."""
    everything_saveable = nothing_saveable = dots_saveable = checkpoint_dots = \
        dots_with_no_batch_dims_saveable = checkpoint_dots_with_no_batch_dims = \
        staticmethod(lambda *args, **params: False)

    @staticmethod
    def save_only_these_names(*names):
        return checkpoint_policies.nothing_saveable

    save_any_names_but_these = save_anything_except_these_names = save_only_these_names
    save_and_offload_only_these_names = offload_dot_with_no_batch_dims = \
        staticmethod(lambda *args, **kwargs: checkpoint_policies.nothing_saveable)
    save_from_both_policies = staticmethod(lambda a, b: checkpoint_policies.nothing_saveable)


class _ValueOf:
    """The value part of a function returning (value, vjp_fn)."""

    def __init__(self, fun):
        self.fun, self.__name__ = fun, getattr(fun, "__name__", "f")

    def __call__(self, *args):
        return interpretable(self.fun)(*args)[0]


def custom_gradient(fun):
    """JAX's custom_gradient: `fun(*args)` returns (value, vjp_fn), vjp_fn(g) the cotangents
    of the arguments. A custom_vjp whose residuals are the arguments: the backward pass runs
    fun again to rebuild vjp_fn."""
    wrapped = custom_vjp(_ValueOf(fun))
    call = interpretable(fun)
    wrapped.defvjp(lambda *args: (call(*args)[0], args),
                   lambda args, g: tuple(call(*args)[1](g)))
    return wrapped


def closure_convert(fun, *example_args):
    """(fun, []): JAX hoists the arrays a function closes over so a custom_vjp can
    differentiate them; astjax's custom derivatives bind closed-over values themselves, so
    there is nothing to hoist and the function comes back as it is."""
    return fun, []


__all__ = ["custom_jvp", "custom_vjp", "checkpoint", "remat", "checkpoint_policies",
           "custom_gradient", "closure_convert"]
