"""`show` and `make_source`: the generated source of a transformed function."""
from .errors import TransformError


def make_source(fun, *example_args, **example_kwargs) -> str:
    """The generated module for `fun` specialised to these example arguments."""
    from .jit import JitFunction, jit
    jitted = fun if isinstance(fun, JitFunction) else jit(fun)
    if not example_args and not example_kwargs:
        return jitted.source
    entry, _ = jitted.lookup(example_args, example_kwargs)
    return entry.source


def show(fun, *example_args, **example_kwargs) -> None:
    """Print the generated source (of the last compilation, or for these example arguments)."""
    print(make_source(fun, *example_args, **example_kwargs))


__all__ = ["make_source", "show", "TransformError"]
