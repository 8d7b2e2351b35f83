"""astjax.debug.print: print values from inside compiled code, when it runs."""
from .callbacks import debug_callback as callback  # noqa: F401  (jax.debug.callback)
from .core.bind import bind, current_builder


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
