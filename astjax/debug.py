"""astjax.debug: `print` and `callback` from inside compiled code, when it runs."""
from .core.bind import bind, current_builder
from .core.hooks import transformation


def print(fmt: str, *args, **kwargs) -> None:  # noqa: A001  (JAX's name)
    """Like jax.debug.print: `fmt.format(*args, **kwargs)` with the runtime values."""
    if kwargs:
        names = list(kwargs)
        fmt = fmt.format(*[f"{{{i}}}" for i in range(len(args))],
                         **{n: f"{{{len(args) + k}}}" for k, n in enumerate(names)})
        args = args + tuple(kwargs[n] for n in names)
    if current_builder() is None:
        __builtins__["print"](fmt.format(*args)) if isinstance(__builtins__, dict) \
            else __builtins__.print(fmt.format(*args))
        return
    bind("debug_print", *args, fmt=fmt)


def callback(callback, *args, ordered=False, partitioned=False, **kwargs) -> None:
    """Like jax.debug.callback: `callback(*args, **kwargs)` called for what it does when the
    computation reaches it (defined with the other host calls, in astjax.callbacks)."""
    transformation("debug_callback")(callback, *args, ordered=ordered,
                                     partitioned=partitioned, **kwargs)
