"""Transformations that library code applies to user functions (`jnp.vectorize` and
`jnp.apply_along_axis` batch one with vmap). They are defined above the library, in the API
layer, which provides them here when it loads; the library looks them up by name."""
from ..errors import TransformError

_PROVIDED: dict = {}


def provide(name: str, transformation) -> None:
    _PROVIDED[name] = transformation


def transformation(name: str):
    if name not in _PROVIDED:  # the API has not been touched yet: load it (it provides them)
        import sys
        package = sys.modules.get(__name__.split(".")[0])
        if package is not None and hasattr(package, "_loaded"):
            package._loaded()
    try:
        return _PROVIDED[name]
    except KeyError:
        raise TransformError(f"the {name} transformation is not loaded",
                             hint="import astjax (the API) before compiling") from None
